import Foundation
import LatchkeyCore

extension LoginFlow {
    /// The request options of the prompt's passkey answer: a single-use challenge bound to the
    /// prompt's challenge token, the wallet's passkeys as the credentials that may answer.
    package func passkeyPromptOptions(for user: UserRecord, challengeToken: String, deviceID: String,
                                      caller: Caller) async throws -> PasskeyRequestOptions? {
        nil
    }

    /// Checks a passkey assertion answering the prompt of `challengeToken` for `user`.
    /// Throws `DomainError.wrongCredentials` when it does not verify.
    package func checkPasskeyAtPrompt(_ assertion: PasskeyAssertionInput, user: UserRecord, challengeToken: String,
                                      deviceID: String, caller: Caller) async throws {
        throw DomainError.wrongCredentials
    }
}
