import Foundation

/// Which users an operator lists (`listUsers`).
public enum UserStateFilter: String, Sendable, CaseIterable {
    /// Not deactivated, no operator lock.
    case active
    /// The operator lock is on.
    case locked
    /// The wallet is deactivated.
    case deactivated
    /// The email address is not verified.
    case unverified
}

/// Where a page of users ends: the next page starts after it (newest first), so users who
/// register between two pages neither repeat nor shift a page.
public struct UserPageCursor: Sendable, Equatable {
    public var createdAt: Date
    public var id: String
    public init(createdAt: Date, id: String) {
        self.createdAt = createdAt
        self.id = id
    }
}

/// What the admin API reads beyond the wallets' own stores: pages of users, a user's live
/// sessions and smart lockout. Each reads at most what it returns.
public protocol AdminStore: AuditingStore {
    /// Users of `issuer` in `state` (any when nil), newest first (`created_at`, then `id`,
    /// descending), after `cursor`; at most `limit`.
    func users(issuer: String, state: UserStateFilter?, after cursor: UserPageCursor?, limit: Int) async throws -> [UserRecord]
    /// The user's live sessions (not revoked, not expired, seen after `idleBefore`), the most
    /// recently seen first; at most `limit`.
    func liveSessions(userID: String, now: Date, idleBefore: Date, limit: Int) async throws -> [SessionRecord]
    /// Until when the smart lockout keeps unlinked devices out of the wallet, if it does at `now`.
    func unlinkedLockout(userID: String, now: Date) async throws -> Date?
}
