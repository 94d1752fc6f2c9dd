import Foundation

/// A stored secret of a user.
public enum StoredCredential: Sendable, Equatable {
    case password
    case passcode
    case answer(question: String)
}

/// Changes of a user's credentials and profile.
public protocol CredentialStore: AuditingStore {
    /// Replaces the password hash, keeping the previous one in the history (at most `keep` kept), and
    /// in the same transaction ends every session but `keepSession` and every device token, and
    /// queues `messages`.
    func updatePassword(userID: String, hash: String, now: Date, keep: Int, keepSession: String?,
                        messages: [OutboxMessage]) async throws
    /// Replaces a hash of the same secret (stronger parameters); dates and history stay as they are.
    func upgradeHash(userID: String, credential: StoredCredential, hash: String) async throws
    /// The newest `limit` previous password hashes.
    func passwordHistory(userID: String, limit: Int) async throws -> [String]
    /// Replaces the passcode hash and, in the same transaction, ends every session but `keepSession`
    /// and every device token (whoever knew the old PIN keeps nothing it opened), and queues `messages`.
    func updatePasscode(userID: String, hash: String, now: Date, keepSession: String?, messages: [OutboxMessage]) async throws
    /// Replaces all MFA answers at once.
    func replaceMFAAnswers(userID: String, answers: [MFAAnswerRecord], now: Date, messages: [OutboxMessage]) async throws
    /// Sets or clears the operator lock (424).
    func setLocked(userID: String, locked: Bool) async throws
    /// Applies a profile update in one transaction: the columns, the profile document, the MFA
    /// answers when given, and the tokens (an email change's link and its revert link) with their messages.
    func applyProfileUpdate(_ user: UserRecord, answers: [MFAAnswerRecord]?, tokens: [TokenRecord],
                            messages: [OutboxMessage], now: Date) async throws
    /// Puts an email change back, in one transaction: `email` is the login again (verified: its
    /// owner opened the link), pending email-change links are void, and every session and device
    /// token ends. Throws `StoreError.emailInUse` when another wallet has the address meanwhile.
    func revertEmail(userID: String, email: String, now: Date) async throws
    /// Makes a confirmed new address the login; with `replacingPending`, first deletes an unverified
    /// registration of the address (a wallet's confirmed email change proves the inbox). Throws
    /// `StoreError.emailInUse` when it was taken meanwhile.
    func changeEmail(userID: String, email: String, replacingPending: Bool, now: Date) async throws
    /// Stores a token together with the messages that carry it, in one transaction.
    func issueToken(_ token: TokenRecord, messages: [OutboxMessage]) async throws
}
