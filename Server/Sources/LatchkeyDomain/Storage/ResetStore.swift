import Foundation

/// The credential a completed reset sets.
public enum CredentialChange: Sendable, Equatable {
    /// A new password; the previous one joins the history, of which `keep` entries are kept.
    case password(hash: String, keep: Int)
    /// A new passcode.
    case passcode(hash: String)
}

/// What the forgotten-credential resets of the portal need from the database.
public protocol ResetStore: AuditingStore {
    /// Counts one answer against a live token, atomically: answers the token with its new count,
    /// or nil when it is unknown, used, expired, or already has `limit` attempts.
    func reserveTokenAttempt(digest: String, purpose: TokenPurpose, now: Date, limit: Int) async throws -> TokenRecord?
    /// Completes a reset in one transaction: consumes the grant, sets the credential, marks the email
    /// verified (the link proved the inbox), restores a wallet and devices that consecutive failures
    /// deactivated (operator deactivations stay), revokes every session and device token (and, for a
    /// password, the device certificates), and queues the messages. Answers false, changing nothing, when the grant is not live.
    func completeReset(grant digest: String, purpose: TokenPurpose, userID: String, change: CredentialChange,
                       limits: AttemptLimits, messages: [OutboxMessage], now: Date) async throws -> Bool
}
