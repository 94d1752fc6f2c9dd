import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The phone sign-up and Kratos-compatible routes: thin calls into `SignupService`.
extension APIHandler {
    private var baseURL: String { signup.publicURL.value }

    package func createNativeRegistrationFlow(_ input: Operations.CreateNativeRegistrationFlow.Input) async throws
        -> Operations.CreateNativeRegistrationFlow.Output {
        .ok(.init(body: .json(KratosWire.flow(try await signup.createFlow(.registration), baseURL: baseURL))))
    }

    package func createNativeLoginFlow(_ input: Operations.CreateNativeLoginFlow.Input) async throws -> Operations.CreateNativeLoginFlow.Output {
        .ok(.init(body: .json(KratosWire.flow(try await signup.createFlow(.login), baseURL: baseURL))))
    }

    package func updateRegistrationFlow(_ input: Operations.UpdateRegistrationFlow.Input) async throws
        -> Operations.UpdateRegistrationFlow.Output {
        let body = input.body.json
        let traits = IdentityTraits(firstName: body.traits.name?.first, lastName: body.traits.name?.last,
                                    phone: body.traits.phone, email: body.traits.email)
        do {
            let live = try await signup.register(flowID: input.query.flow, method: body.method, traits: traits,
                                                 password: body.password ?? "", caller: caller)
            return .ok(.init(body: .json(.init(sessionToken: live.token, session: KratosWire.session(live.session, of: live.user, baseURL: baseURL),
                                               identity: KratosWire.identity(live.user, baseURL: baseURL), continueWith: []))))
        } catch let form as FlowFormError {
            return .badRequest(.init(body: .json(.SelfServiceFlow(KratosWire.flow(form.flow, baseURL: baseURL, messages: form.messages)))))
        }
    }

    package func updateLoginFlow(_ input: Operations.UpdateLoginFlow.Input) async throws -> Operations.UpdateLoginFlow.Output {
        let body = input.body.json
        do {
            let live = try await signup.login(flowID: input.query.flow, method: body.method,
                                              identifier: body.identifier ?? body.passwordIdentifier ?? "",
                                              password: body.password ?? "", caller: caller)
            return .ok(.init(body: .json(.init(sessionToken: live.token, session: KratosWire.session(live.session, of: live.user, baseURL: baseURL)))))
        } catch let form as FlowFormError {
            return .badRequest(.init(body: .json(.SelfServiceFlow(KratosWire.flow(form.flow, baseURL: baseURL, messages: form.messages)))))
        }
    }

    package func toSession(_ input: Operations.ToSession.Input) async throws -> Operations.ToSession.Output {
        let principal = try caller.identity.require(or: .sessionInactive)
        let user = try await principal.user(or: .sessionInactive)
        return .ok(.init(body: .json(KratosWire.session(principal.session, of: user, baseURL: baseURL))))
    }

    package func performNativeLogout(_ input: Operations.PerformNativeLogout.Input) async throws -> Operations.PerformNativeLogout.Output {
        let body = input.body.json
        try await signup.logout(token: body.sessionToken, provenKey: caller.client.keyThumbprint)
        return .noContent(.init())
    }

    package func sendPhoneVerificationCode(_ input: Operations.SendPhoneVerificationCode.Input) async throws
        -> Operations.SendPhoneVerificationCode.Output {
        let body = input.body.json
        try await signup.sendCode(flowID: body.flowId, phoneNumber: body.phoneNumber, clientIP: caller.client.clientIP,
                                languages: caller.client.languages)
        return .created(.init())
    }

    package func verifyPhoneNumber(_ input: Operations.VerifyPhoneNumber.Input) async throws -> Operations.VerifyPhoneNumber.Output {
        let body = input.body.json
        try await signup.verifyCode(flowID: body.flowId, otp: body.otp)
        // The spec's sentence, in the customer's language.
        let message = catalog.texts(for: caller.client.languages).api(LocalizableText("Phone verified successfully"))
        return .ok(.init(body: .json(.init(message: message))))
    }

    package func uploadDevicePublicKey(_ input: Operations.UploadDevicePublicKey.Input) async throws
        -> Operations.UploadDevicePublicKey.Output {
        let body = input.body.json
        let issued = try await signup.issueCertificate(try caller.identity.require(or: .sessionInactive),
                                                       publicKey: body.publicKey, caller: caller)
        return .ok(.init(body: .json(.init(tokenType: .dPoP, certificate: issued.certificatePEM, expiresAt: issued.notAfter,
                                           caCertificate: issued.caCertificatePEM,
                                           serialNumber: issued.serialNumber, notBefore: issued.notBefore,
                                           notAfter: issued.notAfter))))
    }

    package func getDeviceCertificateStatus(_ input: Operations.GetDeviceCertificateStatus.Input) async throws
        -> Operations.GetDeviceCertificateStatus.Output {
        let status = try await signup.certificateStatus(serial: input.path.serialNumber)
        let state: Components.Schemas.DeviceCertificateStatus.StatusPayload = switch status.state {
        case .good: .good
        case .revoked: .revoked
        case .expired: .expired
        }
        return .ok(.init(body: .json(.init(serialNumber: status.serialNumber, status: state,
                                           revokedAt: status.revokedAt, notAfter: status.notAfter))))
    }
}
