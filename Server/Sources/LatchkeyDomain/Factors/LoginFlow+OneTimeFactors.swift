import Foundation
import LatchkeyCore

extension LoginFlow {
    /// Checks an authenticator app's code answering the MFA prompt for `user`.
    /// Throws `DomainError.wrongCredentials` when it is wrong or spent.
    package func checkTOTPAtPrompt(_ code: String, user: UserRecord, deviceID: String, hasher: SecretHasher,
                                   caller: Caller) async throws {
        throw DomainError.wrongCredentials
    }

    /// Checks (and spends) a recovery code answering the MFA prompt for `user`.
    /// Throws `DomainError.wrongCredentials` when it is wrong or used.
    package func checkRecoveryCodeAtPrompt(_ code: String, user: UserRecord, deviceID: String, hasher: SecretHasher,
                                           caller: Caller) async throws {
        throw DomainError.wrongCredentials
    }
}
