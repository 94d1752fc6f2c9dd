import Foundation

extension WebAuthnVerifier {
    /// Checks an assertion (§7.2) against the stored credential: clientData `type` is `webauthn.get`,
    /// its challenge is `challenge` (constant time), its origin is allowed and it is not cross-origin;
    /// the authenticator data parses, its rpIdHash is SHA-256 of `relyingParty.id`, UP and UV are set,
    /// BE is what it was at registration (`backupEligible`); `signature` over authData ||
    /// SHA-256(clientDataJSON) verifies with the stored COSE key `publicKey`; and when the stored or the
    /// new signature counter is non-zero, the new one is greater than the stored one.
    ///
    /// Which credential `publicKey` belongs to (the assertion's credential id, its user handle) is the
    /// caller's lookup; this checks what the credential signed.
    /// - Throws: `WebAuthnError`, the first rule that failed (`.signCountRegression` only after the
    ///   signature verified, so a forged assertion cannot probe the counter).
    public static func verifyAssertion(_ response: WebAuthnAssertion, challenge: Data, relyingParty: WebAuthnRelyingParty,
                                       publicKey: Data, storedSignCount: UInt32,
                                       backupEligible: Bool) throws(WebAuthnError) -> VerifiedAssertion {
        try checkClientData(response.clientDataJSON, type: "webauthn.get", challenge: challenge, relyingParty: relyingParty)
        let authenticatorData = try AuthenticatorData(response.authenticatorData)
        try checkAuthenticatorData(authenticatorData, relyingParty: relyingParty)
        guard authenticatorData.flags.contains(.backupEligible) == backupEligible else { throw .backupEligibilityChanged }
        let key = try COSEKey(bytes: publicKey)
        guard key.isValidSignature(response.signature, for: signedBytes(authenticatorData, response.clientDataJSON)) else {
            throw .badSignature
        }
        let signCount = authenticatorData.signCount
        if storedSignCount != 0 || signCount != 0 {
            guard signCount > storedSignCount else { throw .signCountRegression }
        }
        return VerifiedAssertion(signCount: signCount, backedUp: authenticatorData.flags.contains(.backedUp),
                                 userVerified: authenticatorData.flags.contains(.userVerified))
    }
}
