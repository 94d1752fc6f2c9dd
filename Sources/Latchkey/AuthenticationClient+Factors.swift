import Foundation
import LatchkeyAPI
import LatchkeyCore

/// One answer to the MFA prompt, of a factor the prompt offers (`MFAToken.factors`).
public enum MFAProof: Sendable, Equatable {
    /// The answer to `MFAToken.mfaSecretQuestion`.
    case answer(String)
    /// A code the wallet's authenticator app shows now.
    case totp(String)
    /// One of the wallet's recovery codes (used up by this login).
    case recoveryCode(String)
    /// A passkey's answer to `MFAToken.passkeyOptions`.
    case passkey(PasskeyAssertion)
}

extension AuthenticationClient {
    /// Answers the MFA prompt with any factor it offers: the answer links this device and logs in.
    /// Errors are in the domain of the login that prompted.
    /// - Throws: `LatchkeyError`: 401 for a wrong answer or code (counted toward the lockout like a
    ///   wrong PIN), `.factorNotOffered` for a factor the prompt did not offer, `.passkeyRejected`
    ///   for a passkey answer the server cannot verify.
    public func answerMFA(_ token: MFAToken, with proof: MFAProof) async throws(LatchkeyError) -> LoginResult {
        var body = Components.Schemas.MFAAnswerRequest(challengeToken: token.challengeToken)
        switch proof {
        case .answer(let answer): body.mfaSecretAnswer = answer
        case .totp(let code): body.totpCode = code
        case .recoveryCode(let code): body.recoveryCode = code
        case .passkey(let assertion): body.passkey = assertion.wire
        }
        return try await login(token.domain, method: .mfaAnswer) { try await api.registerWithMFA(body: .json(body)).ok.body.json }
    }

    /// Starts a passkey login without a username: the options for the authenticator
    /// (`PasskeyAuthenticator.assert(_:)`), which offers every passkey it holds for the domain.
    /// The challenge is bound to this device (`deviceID`).
    public func passkeyLoginOptions() async throws(LatchkeyError) -> PasskeyAssertionOptions {
        let wire = try await context.call(.loginWithPasskey) { try await api.startPasskeyLogin().ok.body.json.publicKey }
        return try PasskeyAssertionOptions(wire, defaultRelyingPartyID: context.serverURL.host, domain: .loginWithPasskey)
    }

    /// Logs in with a passkey's answer to ``passkeyLoginOptions()``. A passkey is a factor of its
    /// own: it links a phone not linked yet, with no MFA prompt.
    /// - Throws: `LatchkeyError` (`.loginWithPasskey`): `.passkeyRejected` when the server cannot
    ///   verify the answer (an unknown passkey, another challenge, another domain).
    public func loginWithPasskey(_ assertion: PasskeyAssertion) async throws(LatchkeyError) -> LoginResult {
        // Not counted in the login statistics: their methods are the contract's, which has no passkey.
        try await login(.loginWithPasskey) {
            try await api.loginWithPasskey(body: .json(.init(credential: assertion.wire))).ok.body.json
        }
    }
}
