import Foundation

/// The password history: a new password may be neither the current one nor among the issuer's
/// last `passwordHistory` passwords (406 `password_reused`), whether it is set by a change, an
/// expired password's change or the reset portal.
extension CredentialVerifier {
    /// Whether `password` is the current one or among the issuer's password history, each stored
    /// hash verified in parallel with the operation's admitted `hasher`. Throws what the store or
    /// the hasher throws.
    package func recentlyUsed(_ password: String, by user: UserRecord, hasher: SecretHasher) async throws -> Bool {
        guard issuer.passwordHistory > 0 else { return false }
        let hashes = [user.passwordHash].compactMap { $0 }
            + (try await store.passwordHistory(userID: user.id, limit: max(0, issuer.passwordHistory - 1)))
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            for hash in hashes { group.addTask { try await hasher.verify(password, against: hash) } }
            return try await group.contains(true)
        }
    }
}
