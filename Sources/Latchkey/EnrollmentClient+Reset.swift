import LatchkeyAPI
import LatchkeyCore

/// The answer of `resetForgottenPassword` and `resetForgottenPasscode`
/// (`SendForgotCredentialsRequestCompletionBlock`).
public struct ForgotCredentialsResponse: Codable, Sendable, Equatable {
    /// A confirmation message from the server.
    public var message: String
    /// Always nil, as the spec says: the question is asked in the secure portal the email links to.
    public var mfaQuestions: [String]?
}

extension ForgotCredentialsResponse {
    /// `mfaQuestions` is null on the wire, always (the portal asks the question).
    init(_ wire: Components.Schemas.ResetResponse) {
        self.init(message: wire.message, mfaQuestions: nil)
    }
}

extension EnrollmentClient {
    /// `resetForgottenPassword`: emails a link to the secure portal, where the user answers one of
    /// their MFA questions and sets a new password. Errors of `kUserErrorResetForgottenCredentialsDomain`:
    /// 400 malformed email, 410 no wallet has the address (unless the issuer answers all alike).
    public func resetForgottenPassword(_ email: String) async throws(LatchkeyError) -> ForgotCredentialsResponse {
        try checkEmail(email)
        return try await call(.resetForgottenCredentials) {
            ForgotCredentialsResponse(try await api.resetForgottenPassword(body: .json(.init(email: email))).ok.body.json)
        }
    }

    /// `resetForgottenPasscode`: as `resetForgottenPassword`, for the PIN.
    public func resetForgottenPasscode(_ email: String) async throws(LatchkeyError) -> ForgotCredentialsResponse {
        try checkEmail(email)
        return try await call(.resetForgottenCredentials) {
            ForgotCredentialsResponse(try await api.resetForgottenPasscode(body: .json(.init(email: email))).ok.body.json)
        }
    }

    private func checkEmail(_ email: String) throws(LatchkeyError) {
        if !EmailAddress.isValid(email.trimmingCharacters(in: .whitespaces)) {
            throw refusal(.invalidField("email", "The email address is not valid."), .resetForgottenCredentials)
        }
    }
}
