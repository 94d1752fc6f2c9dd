import Foundation
import LatchkeyCore

extension LoginFlow {
    /// The request options of the prompt's passkey answer: a single-use challenge bound to the
    /// wallet, the device and the prompt's challenge token (its digest), the wallet's passkeys as
    /// the credentials that may answer; nil when the wallet has none.
    package func passkeyPromptOptions(for user: UserRecord, challengeToken: String, deviceID: String,
                                      caller: Caller) async throws -> PasskeyRequestOptions? {
        let enrolled = try await store.passkeys(userID: user.id)
        guard !enrolled.isEmpty else { return nil }
        let challenge = try await passkeys.issueChallenge(.prompt, userID: user.id, deviceID: deviceID,
                                                          data: SecureRandom.digest(challengeToken))
        return passkeys.requestOptions(challenge: challenge, allow: enrolled)
    }

    /// Checks a passkey assertion answering the prompt of `challengeToken` for `user`: its
    /// challenge must be the one this prompt issued (same wallet, device and challenge token), its
    /// credential one of the wallet's passkeys, and it must verify (`PasskeyCeremonies.verify`).
    /// A failure counts like a wrong answer from an unlinked device (the smart lockout).
    /// Throws `DomainError.wrongCredentials` when it does not verify.
    package func checkPasskeyAtPrompt(_ assertion: PasskeyAssertionInput, user: UserRecord, challengeToken: String,
                                      deviceID: String, caller: Caller) async throws {
        var used: PasskeyRecord?
        try await verifier.check(user: user, deviceID: nil, factor: .passkey, caller: caller, burn: {}) { _ in
            guard let taken = try await passkeys.takeChallenge(answeredBy: assertion.clientDataJSON, purpose: .prompt),
                  taken.record.userID == user.id, taken.record.deviceID == deviceID,
                  taken.record.data == SecureRandom.digest(challengeToken)
            else { return .invalidChallenge }
            guard let passkey = try await store.passkey(credentialID: assertion.credentialID), passkey.userID == user.id else {
                return .unknownPasskey
            }
            used = passkey
            return try await passkeys.verify(assertion, by: passkey, challenge: taken.challenge)
        }
        audit(.factorUsed, user: user.id, deviceID: deviceID, details: ["kind": FactorKind.passkey.rawValue, "id": used?.id ?? ""],
              for: caller)
    }
}
