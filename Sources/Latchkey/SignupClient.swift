import Foundation
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

/// Phone sign-up as `spec/phone-signup-flow.txt` describes it: start (flow and code in one call),
/// verify the code, finish. At the end the SDK makes the device key pair, keeps the private key,
/// registers the public key for a client certificate and only then reports the user authenticated;
/// the session token is never handed to the app.
public struct SignupClient: Sendable {
    let context: LatchkeyContext
    let api: Client
    let vault: SessionVault
    /// Holds the device key the certificate is issued for (the key every request proves).
    let signer: DPoPSigner
    let storage: any CredentialStorage

    /// `startSignupFlow`: fetches a registration flow and sends the code to the number.
    /// `.signup(.otp(…))` when the code could not be sent.
    public func startSignupFlow(_ request: StartSignupRequest) async throws(SignupFlowError) -> StartSignupResponse {
        let api = self.api
        let phone = request.phoneNumber.trimmingCharacters(in: .whitespaces)
        guard PhoneNumber.isValid(phone) else {
            throw .signup(.otp(refusal("phoneNumber", "Use the E.164 form, for example +439999999999.", .startSignupFlow)))
        }
        let flow: Components.Schemas.SelfServiceFlow
        do { flow = try await context.call(.startSignupFlow) { try await api.createNativeRegistrationFlow().ok.body.json } } catch {
            throw .other(error)
        }
        do {
            try await context.call(.startSignupFlow) {
                _ = try await api.sendPhoneVerificationCode(body: .json(.init(phoneNumber: phone, phoneType: .primary,
                                                                                flowId: flow.id, flowType: .registration))).created
            }
        } catch {
            throw error.kind == .transport ? .other(error) : .signup(.otp(error))
        }
        return StartSignupResponse(flowID: flow.id)
    }

    /// `verifyPhoneNumber`: checks the code from the SMS; answers the same flow id.
    public func verifyPhoneNumber(_ request: VerifyPhoneNumberRequest) async throws(SignupFlowError) -> VerifyPhoneNumberResponse {
        let api = self.api
        guard !request.otp.isEmpty else { throw .signup(.verification(refusal("otp", "Enter the code from the SMS.", .verifyPhoneNumber))) }
        do {
            try await context.call(.verifyPhoneNumber) {
                _ = try await api.verifyPhoneNumber(body: .json(.init(phoneType: .primary, flowId: request.flowID, otp: request.otp,
                                                                      flowType: .registration))).ok
            }
        } catch {
            throw error.kind == .transport ? .other(error) : .signup(.verification(error))
        }
        return VerifyPhoneNumberResponse(flowID: request.flowID)
    }

    /// `finishSignupFlow`: registers the user on the verified flow, then the device key; reports
    /// `.authenticated` through the state stream and delegate once both are done.
    public func finishSignupFlow(_ request: FinishSignupRequest) async throws(SignupFlowError) -> FinishSignupResponse {
        let api = self.api
        if await vault.pendingSignup?.flowID != request.flowID {
            let email = request.email.flatMap { $0.isEmpty ? nil : $0 }
            let body = Components.Schemas.UpdateRegistrationFlowBody(
                method: "password", traits: .init(name: .init(first: request.firstName, last: request.lastName),
                                                  phone: request.phoneNumber, email: email),
                password: request.password)
            let response: Components.Schemas.SuccessfulNativeRegistration
            do {
                response = try await context.call(.finishSignupFlow) {
                    try await api.updateRegistrationFlow(query: .init(flow: request.flowID), body: .json(body)).ok.body.json
                }
            } catch {
                throw error.kind == .transport ? .other(error) : .signup(.registration(error))
            }
            await vault.stagePendingSignup(flowID: request.flowID, token: response.sessionToken,
                                           customerUri: "urn:latchkey:customer:\(response.identity.id)")
        }
        do {
            let key = try await signer.deviceKey()
            let certificate: Components.Schemas.DeviceCertificate = try await context.call(.finishSignupFlow) {
                try await api.uploadDevicePublicKey(body: .json(.init(publicKey: key.publicKeyBase64))).ok.body.json
            }
            try await storage.set(Data(certificate.certificate.utf8), for: DeviceKey.certificateKey)
        } catch let error as LatchkeyError {
            throw .signup(.deviceKey(error))
        } catch {
            throw .signup(.deviceKey(LatchkeyError(kind: .configuration, code: .serverError, domain: .finishSignupFlow,
                                                   id: .deviceKey, message: "The device key could not be kept.",
                                                   detail: "\(error)")))
        }
        do { try await vault.completePendingSignup() } catch {
            throw .other(LatchkeyError.storage(error, domain: .finishSignupFlow))
        }
        return FinishSignupResponse(flowID: request.flowID)
    }

    /// The client certificate (PEM) the server issued for this device's key, once signed up.
    public func deviceCertificate() async -> String? {
        (try? await storage.data(for: DeviceKey.certificateKey)).flatMap { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    private func refusal(_ field: String, _ message: String, _ domain: ErrorDomain) -> LatchkeyError {
        LatchkeyError(kind: .validation, code: .invalidParameter, domain: domain, id: .invalidField,
                      message: context.message(for: domain, code: .invalidParameter) ?? message, detail: message, field: field)
    }
}
