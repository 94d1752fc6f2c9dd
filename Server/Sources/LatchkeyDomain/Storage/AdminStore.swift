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
    /// Users of `issuer` in `state` (any when nil), newest first by a position the database gives
    /// each user when it is stored, strictly increasing, so users stored since never move a page;
    /// after `cursor` (below the position of the user it names, or, when that user is gone, of the
    /// newest created before it); at most `limit`.
    func users(issuer: String, state: UserStateFilter?, after cursor: UserPageCursor?, limit: Int) async throws -> [UserRecord]
    /// Users of `issuer` whose normalized address starts with `emailPrefix` (compared byte by
    /// byte), in `state` when given, by address after `afterEmail`; at most `limit`.
    func users(issuer: String, emailPrefix: String, state: UserStateFilter?, afterEmail: String?, limit: Int) async throws -> [UserRecord]
    /// Users of `issuer` whose external id is `externalID` exactly, in `state` (any when nil),
    /// newest first; at most `limit`.
    func users(issuer: String, externalID: String, state: UserStateFilter?, limit: Int) async throws -> [UserRecord]
    /// The user's device tokens neither revoked nor expired at `now`, the latest to expire (the
    /// newest) first; at most `limit`.
    func liveDeviceTokens(userID: String, now: Date, limit: Int) async throws -> [DeviceTokenRecord]
    /// The newest certificate of each of the user's devices, by device id (of its `limit` newest certificates).
    func newestCertificates(userID: String, limit: Int) async throws -> [String: DeviceCertificateRecord]
    /// The user's live sessions (not revoked, not expired, seen after `idleBefore`), the most
    /// recently seen first; at most `limit`.
    func liveSessions(userID: String, now: Date, idleBefore: Date, limit: Int) async throws -> [SessionRecord]
    /// Until when the smart lockout keeps unlinked devices out of the wallet, if it does at `now`.
    func unlinkedLockout(userID: String, now: Date) async throws -> Date?
    /// Lifts the locks of a wallet in one transaction: the operator lock, the wallet's failure
    /// count, a deactivation that failures caused (a count at `limits.wallet`), each device
    /// deactivated by failures (a count at `limits.device`), and the smart lockout. A deactivation
    /// by an operator (fewer failures) stays. Answers whether the wallet was reactivated, and which devices.
    func unlockUser(userID: String, limits: AttemptLimits, now: Date) async throws -> (wallet: Bool, devices: [String])
    /// Ends every session and device token of a user in one transaction.
    func endUserSessions(userID: String, now: Date) async throws
}

/// Which events of the audit trail an operator lists (`listEvents`); nil matches anything.
public struct AuditEventFilter: Sendable, Equatable {
    public var userID: String?
    public var type: AuditEventType?
    public var outcome: AuditOutcome?
    public var clientIP: String?
    /// From this instant (inclusive).
    public var since: Date?
    /// Before this instant (exclusive).
    public var until: Date?
    /// Leave out operators' reads (events with the reason `read`): a user's latest events.
    public var excludingReads: Bool

    public init(userID: String? = nil, type: AuditEventType? = nil, outcome: AuditOutcome? = nil, clientIP: String? = nil,
                since: Date? = nil, until: Date? = nil, excludingReads: Bool = false) {
        (self.userID, self.type, self.outcome, self.clientIP, self.since, self.until) = (userID, type, outcome, clientIP, since, until)
        self.excludingReads = excludingReads
    }
}

/// The audit trail for the admin API.
public protocol AdminAuditStore: Sendable {
    /// Events matching `filter`, newest first (by id, which sorts as they were recorded), before
    /// the event `id` when given, among the `scan` newest events (before `id`, in the time range)
    /// of one of its conditions — the user, else the client address, else the type, else the
    /// outcome — so a call reads `scan` events at most whatever the filter combines. Answers the
    /// matches, and the id of the last event read when `scan` were read (older ones may match:
    /// the next page continues before it).
    func auditEvents(matching filter: AuditEventFilter, before id: String?,
                     scan: Int) async throws -> (events: [AuditEvent], lastRead: String?)
}

/// Which of the courier's messages an operator lists (`listCourierMessages`).
public enum CourierMessageState: String, Sendable, CaseIterable {
    /// Not delivered yet, still being tried.
    case pending
    /// Delivered.
    case sent
    /// Given up after the last attempt.
    case failed
}

/// Where a page of messages ends (newest first), as `UserPageCursor` for users.
public typealias MessagePageCursor = UserPageCursor

/// The admin API's changes beyond the wallets' own stores: ending one session, erasing a user,
/// and the courier's messages.
public protocol AdminActionStore: Sendable {
    /// The user's live session (not revoked, not expired, seen after `idleBefore`) whose digest
    /// starts with `sessionID` (the id the admin API shows).
    func liveSession(userID: String, sessionID: String, now: Date, idleBefore: Date) async throws -> SessionRecord?
    /// Erases a user in one transaction: the user, and with it its credentials, devices, sessions,
    /// tokens, certificates, federated identities and statistics; the courier's messages to its
    /// addresses; its phone sign-up flows. Its audit events are kept with the user id, their
    /// details, client address and device emptied (the one change the trail allows). Answers
    /// whether the user existed.
    func eraseUser(userID: String, now: Date) async throws -> Bool
    /// The courier's messages in `state` (any when nil), newest first, after `cursor`; at most `limit`.
    func outboxMessages(state: CourierMessageState?, after cursor: MessagePageCursor?, limit: Int) async throws -> [OutboxMessage]
}
