import Foundation

/// Changes of a user's credentials and profile.
public protocol CredentialStore: Sendable {
    /// Replaces the password hash, keeping the previous one in the history (at most `keep` kept).
    func updatePassword(userID: String, hash: String, now: Date, keep: Int) async throws
    /// The newest `limit` previous password hashes.
    func passwordHistory(userID: String, limit: Int) async throws -> [String]
    /// Replaces the passcode hash.
    func updatePasscode(userID: String, hash: String, now: Date) async throws
    /// Replaces all MFA answers at once.
    func replaceMFAAnswers(userID: String, answers: [MFAAnswerRecord], now: Date) async throws
    /// Sets or clears the operator lock (424).
    func setLocked(userID: String, locked: Bool) async throws
    /// Stores a token together with the messages that carry it, in one transaction.
    func issueToken(_ token: TokenRecord, messages: [OutboxMessage]) async throws
}
