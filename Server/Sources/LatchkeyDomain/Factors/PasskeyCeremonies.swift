import Crypto
import Foundation
import LatchkeyCore

/// What every passkey ceremony shares — the registration and the discoverable login
/// (`PasskeyService`) and the MFA prompt's passkey answer (`LoginFlow`): the relying party as the
/// server is reached now, the wallets' user handles, and the single-use challenges.
///
/// A challenge is 32 random bytes, stored only as the digest of its base64url form
/// (`webauthn_challenges`) with what it is bound to (purpose, wallet, device, prompt). The client
/// sends it back inside clientDataJSON, which the authenticator signed; the challenge is taken from
/// there and taken out of the store in one statement, so each is accepted once across replicas
/// whether or not the rest of the response verifies.
public struct PasskeyCeremonies: Sendable {
    package let store: any PasskeyStore
    package let settings: PasskeySettings
    package let issuerName: String
    package let publicURL: PublicBaseURL
    /// The key of the user handles (`PepperPurpose.passkeyUserHandle`).
    package let userHandleKey: SymmetricKey
    package let now: @Sendable () -> Date

    public init(store: any PasskeyStore, settings: PasskeySettings, issuerName: String, publicURL: PublicBaseURL, pepper: SymmetricKey,
                now: @escaping @Sendable () -> Date) {
        self.store = store
        self.settings = settings
        self.issuerName = issuerName
        self.publicURL = publicURL
        self.userHandleKey = PepperPurpose.passkeyUserHandle.key(from: pepper)
        self.now = now
    }

    /// The relying party checked against: `issuer.passkeys` with its defaults from `publicURL`.
    package var relyingParty: WebAuthnRelyingParty {
        settings.relyingParty(publicURL: publicURL.value, issuerName: issuerName)
    }

    /// How long the client may take, as the options state it.
    package var timeoutMilliseconds: Int { settings.challengeSeconds * 1000 }

    /// The WebAuthn user handle of a wallet: HMAC-SHA256 of its id under a pepper-derived key, so
    /// it is stable (every passkey of the wallet has it, an authenticator replaces rather than
    /// duplicates a wallet's passkey), names the wallet to no one else, and carries no personal data
    /// (WebAuthn §14.6.1).
    package func userHandle(for userID: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(userID.utf8), using: userHandleKey))
    }

    /// Makes and stores a challenge for `purpose`, bound to `userID`, `deviceID` and `data`.
    package func issueChallenge(_ purpose: PasskeyChallengePurpose, userID: String?, deviceID: String?,
                                data: String? = nil) async throws -> Data {
        let challenge = Data(SecureRandom.bytes(32))
        let time = now()
        try await store.createPasskeyChallenge(PasskeyChallengeRecord(
            digest: SecureRandom.digest(Base64URL.encode(challenge)), purpose: purpose, userID: userID, deviceID: deviceID,
            data: data, createdAt: time, expiresAt: time.addingTimeInterval(TimeInterval(settings.challengeSeconds))))
        return challenge
    }

    /// The challenge a response answers (read from its clientDataJSON), taken out of the store: nil
    /// when it is not a live challenge of `purpose` or the clientDataJSON is not readable.
    package func takeChallenge(answeredBy clientDataJSON: Data,
                               purpose: PasskeyChallengePurpose) async throws -> (challenge: Data, record: PasskeyChallengeRecord)? {
        guard let clientData = try? CollectedClientData(clientDataJSON) else { return nil }
        guard let record = try await store.consumePasskeyChallenge(digest: SecureRandom.digest(Base64URL.encode(clientData.challenge)),
                                                                    purpose: purpose, now: now())
        else { return nil }
        return (clientData.challenge, record)
    }

    /// Verifies an assertion by `passkey` to `challenge` and records its use (the counter by
    /// compare-and-set): a user handle, when the authenticator sent one, must be the passkey's
    /// wallet's; then WebAuthn's checks (`WebAuthnVerifier.verifyAssertion`). Answers nil when it
    /// verified and was recorded, else the reason the trail records: `unknown_passkey` for another
    /// wallet's handle, `passkey_rejected` for a failed check or a counter another request moved
    /// on meanwhile.
    package func verify(_ assertion: PasskeyAssertionInput, by passkey: PasskeyRecord, challenge: Data) async throws -> AuditReason? {
        if let handle = assertion.userHandle, !ConstantTime.equal(handle, userHandle(for: passkey.userID)) { return .unknownPasskey }
        guard let verified = try? WebAuthnVerifier.verifyAssertion(
            WebAuthnAssertion(credentialID: assertion.credentialID, clientDataJSON: assertion.clientDataJSON,
                              authenticatorData: assertion.authenticatorData, signature: assertion.signature,
                              userHandle: assertion.userHandle),
            challenge: challenge, relyingParty: relyingParty, publicKey: passkey.publicKey,
            storedSignCount: passkey.signCount, backupEligible: passkey.backupEligible)
        else { return .passkeyRejected }
        guard try await store.usePasskey(id: passkey.id, expectedSignCount: passkey.signCount, signCount: verified.signCount,
                                         backedUp: verified.backedUp, now: now())
        else { return .passkeyRejected }
        return nil
    }

    /// The request options of an assertion to `challenge` (`allowCredentials` empty for a
    /// discoverable login).
    package func requestOptions(challenge: Data, allow passkeys: [PasskeyRecord]) -> PasskeyRequestOptions {
        PasskeyRequestOptions(challenge: challenge, rpID: relyingParty.id,
                              allowCredentials: passkeys.map { PasskeyDescriptor(credentialID: $0.credentialID, transports: $0.transports) },
                              timeoutMilliseconds: timeoutMilliseconds)
    }
}
