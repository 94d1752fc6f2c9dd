import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

extension APIHandler {
    private static func message(_ text: String) -> Components.Schemas.MessageResponse { .init(message: text) }

    package func resendVerificationEmail(_ input: Operations.ResendVerificationEmail.Input) async throws
        -> Operations.ResendVerificationEmail.Output {
        let body = input.body.json
        return .ok(.init(body: .json(Self.message(try await enrollment.resendVerificationEmail(body.email, client: caller.client.clientIP)))))
    }

    package func resetForgottenPassword(_ input: Operations.ResetForgottenPassword.Input) async throws
        -> Operations.ResetForgottenPassword.Output {
        let body = input.body.json
        return .ok(.init(body: .json(try await reset(.password, body.email))))
    }

    package func resetForgottenPasscode(_ input: Operations.ResetForgottenPasscode.Input) async throws
        -> Operations.ResetForgottenPasscode.Output {
        let body = input.body.json
        return .ok(.init(body: .json(try await reset(.passcode, body.email))))
    }

    private func reset(_ kind: CredentialKind, _ email: String) async throws
        -> Components.Schemas.ResetResponse {
        .init(message: try await resetPortal.requestReset(kind, email: email, caller: caller), mfaQuestions: try .init(unvalidatedValue: nil))
    }

    package func changeExpiredPassword(_ input: Operations.ChangeExpiredPassword.Input) async throws
        -> Operations.ChangeExpiredPassword.Output {
        let body = input.body.json
        try await profile.changeExpiredPassword(email: body.email, expired: body.expiredPassword, new: body.newPassword,
                                                confirm: body.confirmNewPassword, caller: caller)
        return .ok(.init(body: .json(Self.message("The password is changed."))))
    }

    package func retrieveCustomer(_ input: Operations.RetrieveCustomer.Input) async throws -> Operations.RetrieveCustomer.Output {
        let customer = try await profile.customer(try caller.identity.require())
        return .ok(.init(body: .json(customer)))
    }

    package func updateUserProfile(_ input: Operations.UpdateUserProfile.Input) async throws -> Operations.UpdateUserProfile.Output {
        let body = input.body.json
        let update = ProfileUpdate(
            firstName: body.firstName, lastName: body.lastName, email: body.email, phone: body.phone,
            externalId: body.externalId, password: body.password, passcode: body.passcode,
            mfaAnswers: body.mfaAnswers?.additionalProperties,
            additionalCustomerInformation: body.additionalCustomerInformation?.additionalProperties,
            addressInformation: body.addressInformation)
        let pending = try await profile.updateProfile(try caller.identity.require(), update, caller: caller)
        let message = pending.isEmpty ? "The profile is updated."
            : "The profile is updated; the change of \(pending.joined(separator: ", ")) takes effect once verified from the emailed link."
        return .ok(.init(body: .json(.init(message: message, pendingVerification: pending))))
    }

    package func updateUserPassword(_ input: Operations.UpdateUserPassword.Input) async throws -> Operations.UpdateUserPassword.Output {
        let body = input.body.json
        try await profile.updatePassword(try caller.identity.require(), old: body.oldPassword,
                                         new: body.newPassword, confirm: body.confirmNewPassword, caller: caller)
        return .ok(.init(body: .json(Self.message("The password is changed; other sessions are signed out."))))
    }

    package func updateUserPasscode(_ input: Operations.UpdateUserPasscode.Input) async throws -> Operations.UpdateUserPasscode.Output {
        let body = input.body.json
        try await profile.updatePasscode(try caller.identity.require(), old: body.oldPasscode,
                                         new: body.newPasscode, confirm: body.confirmNewPasscode, caller: caller)
        return .ok(.init(body: .json(Self.message("The PIN is changed."))))
    }

    package func updateMFAAnswers(_ input: Operations.UpdateMFAAnswers.Input) async throws -> Operations.UpdateMFAAnswers.Output {
        let body = input.body.json
        try await profile.updateMFAAnswers(try caller.identity.require(),
                                           answers: body.mfaAnswers.additionalProperties, caller: caller)
        return .ok(.init(body: .json(Self.message("The security answers are changed."))))
    }
}
