import Foundation
import LatchkeyAPI
import LatchkeyCore

extension APIHandler {
    private static func message(_ text: String) -> Components.Schemas.MessageResponse { .init(message: text) }

    func resendVerificationEmail(_ input: Operations.ResendVerificationEmail.Input) async throws
        -> Operations.ResendVerificationEmail.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        return .ok(.init(body: .json(Self.message(try await enrollment.resendVerificationEmail(body.email, client: RequestIdentity.client.clientIP)))))
    }

    func resetForgottenPassword(_ input: Operations.ResetForgottenPassword.Input) async throws
        -> Operations.ResetForgottenPassword.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        return .ok(.init(body: .json(try await Self.reset(.password, body.email, profile))))
    }

    func resetForgottenPasscode(_ input: Operations.ResetForgottenPasscode.Input) async throws
        -> Operations.ResetForgottenPasscode.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        return .ok(.init(body: .json(try await Self.reset(.passcode, body.email, profile))))
    }

    private static func reset(_ kind: CredentialKind, _ email: String, _ profile: ProfileService) async throws
        -> Components.Schemas.ResetResponse {
        .init(message: try await profile.requestReset(kind, email: email, client: RequestIdentity.client.clientIP), mfaQuestions: try .init(unvalidatedValue: nil))
    }

    func changeExpiredPassword(_ input: Operations.ChangeExpiredPassword.Input) async throws
        -> Operations.ChangeExpiredPassword.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        try await profile.changeExpiredPassword(email: body.email, expired: body.expiredPassword, new: body.newPassword,
                                                confirm: body.confirmNewPassword, deviceID: RequestIdentity.client.deviceID)
        return .ok(.init(body: .json(Self.message("The password is changed."))))
    }

    func retrieveCustomer(_ input: Operations.RetrieveCustomer.Input) async throws -> Operations.RetrieveCustomer.Output {
        let customer = try await profile.customer(try RequestIdentity.current.require())
        return .ok(.init(body: .json(customer)))
    }

    func updateUserProfile(_ input: Operations.UpdateUserProfile.Input) async throws -> Operations.UpdateUserProfile.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        let update = ProfileUpdate(
            firstName: body.firstName, lastName: body.lastName, email: body.email, phone: body.phone,
            externalId: body.externalId, password: body.password, passcode: body.passcode,
            mfaAnswers: body.mfaAnswers?.additionalProperties,
            additionalCustomerInformation: body.additionalCustomerInformation?.additionalProperties,
            addressInformation: body.addressInformation)
        try await profile.updateProfile(try RequestIdentity.current.require(), update)
        return .ok(.init(body: .json(Self.message(update.email == nil ? "The profile is updated."
            : "The profile is updated; the new email address takes effect once verified."))))
    }

    func updateUserPassword(_ input: Operations.UpdateUserPassword.Input) async throws -> Operations.UpdateUserPassword.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        try await profile.updatePassword(try RequestIdentity.current.require(), old: body.oldPassword,
                                         new: body.newPassword, confirm: body.confirmNewPassword)
        return .ok(.init(body: .json(Self.message("The password is changed; other sessions are signed out."))))
    }

    func updateUserPasscode(_ input: Operations.UpdateUserPasscode.Input) async throws -> Operations.UpdateUserPasscode.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        try await profile.updatePasscode(try RequestIdentity.current.require(), old: body.oldPasscode,
                                         new: body.newPasscode, confirm: body.confirmNewPasscode)
        return .ok(.init(body: .json(Self.message("The PIN is changed."))))
    }

    func updateMFAAnswers(_ input: Operations.UpdateMFAAnswers.Input) async throws -> Operations.UpdateMFAAnswers.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        try await profile.updateMFAAnswers(try RequestIdentity.current.require(),
                                           answers: body.mfaAnswers.additionalProperties)
        return .ok(.init(body: .json(Self.message("The security answers are changed."))))
    }
}
