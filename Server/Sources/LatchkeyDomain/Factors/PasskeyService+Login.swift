import Foundation
import LatchkeyCore

extension PasskeyService {
    /// The request options of a discoverable (usernameless) login: no `allowCredentials`, so the
    /// authenticator offers the wallet's passkey itself; a single-use challenge bound to the
    /// device that asked (`X-Device-ID`, or the proven key).
    /// - Throws: `factor_not_offered` (404), `device_id_required` (400) without a device.
    public func loginOptions(caller: Caller) async throws -> PasskeyRequestOptions {
        try rules.requireEnrollable(.passkey)
        guard let deviceID = caller.device.deviceID else { throw DomainError.deviceIDRequired }
        let challenge = try await ceremonies.issueChallenge(.login, userID: nil, deviceID: deviceID)
        return ceremonies.requestOptions(challenge: challenge, allow: [])
    }

    /// A passkey login: the challenge must be a live login challenge of this device (taken once,
    /// whether or not the rest verifies), the credential a registered passkey, and the assertion
    /// must carry the user handle (the login named no credential) and verify
    /// (`PasskeyCeremonies.verify`: user handle, origin, relying party, user
    /// verification, signature, counter by compare-and-set) — under the same rate limit and
    /// lockouts as a password (`CredentialVerifier.check`: from a device not linked to the wallet,
    /// the smart lockout). Then the checks of every login (email and app instance verified,
    /// password not expired) and its end (`LoginFlow.finish`): a device not linked to the wallet is
    /// linked by the passkey, with no MFA prompt, when passkeys answer the prompt
    /// (`issuer.factors.unknownDevice`); otherwise it is prompted. The session is bound to the key
    /// the request proved.
    /// - Throws: `wrong_credentials` (401) for any refused assertion, the lockouts' and the login
    ///   checks' errors.
    public func login(_ assertion: PasskeyAssertionInput, caller: Caller) async throws -> LoginOutcome {
        try rules.requireEnrollable(.passkey)
        let device = caller.device
        guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
        let refused = { (user: String?, reason: AuditReason) -> DomainError in
            audit(.loginFailed, user: user, outcome: .failure, reason: reason, deviceID: deviceID,
                  details: ["factor": CredentialFactor.passkey.rawValue], for: caller)
            return DomainError.wrongCredentials
        }
        guard let taken = try await ceremonies.takeChallenge(answeredBy: assertion.clientDataJSON, purpose: .login),
              taken.record.deviceID == deviceID
        else { throw refused(nil, .invalidChallenge) }
        guard let passkey = try await store.passkey(credentialID: assertion.credentialID),
              let user = try await store.user(id: passkey.userID)
        else { throw refused(nil, .unknownPasskey) }
        try await verifier.check(user: user, deviceID: deviceID, factor: .passkey, caller: caller, burn: {}) { _ in
            // No credential was named, so the authenticator must say whose it is (WebAuthn L3
            // §7.2 step 6); `verify` then checks the handle is the passkey's wallet's.
            guard assertion.userHandle?.isEmpty == false else { return .passkeyRejected }
            return try await ceremonies.verify(assertion, by: passkey, challenge: taken.challenge)
        }
        try verifier.requireVerified(user)
        audit(.factorUsed, user: user.id, deviceID: deviceID, details: ["kind": FactorKind.passkey.rawValue, "id": passkey.id],
              for: caller)
        return try await logins.finish(user, device: device, linkDevice: rules.answersPrompt(.passkey), method: .passkey, caller: caller)
    }
}
