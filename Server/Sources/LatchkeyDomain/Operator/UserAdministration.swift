import Foundation
import LatchkeyCore

/// What operators do to wallets, whichever channel asks (the admin API, the console, the command
/// line): find users, see every reason one cannot log in, lift and set locks, end sessions, set
/// the statuses of wallets and devices, unlink, mark verified, erase. Each call is done for an
/// `OperatorCall` and recorded by the `OperatorTrail` (reads too). Knows no HTTP; refuses with
/// `DomainError`.
public struct UserAdministration: Sendable {
    public typealias Store = UserStore & DeviceStore & SessionStore & CredentialStore & AuditStore & AdminStore & AdminAuditStore & AdminActionStore
        & StatisticsStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let trail: OperatorTrail
    package let now: @Sendable () -> Date
    /// The most sessions a user's detail lists (the most recently seen).
    public static let sessionsListed = 100
    /// The most device tokens and certificates a user's detail reads, and the events it lists.
    public static let deviceTokensListed = 100, certificatesRead = 200, eventsListed = 20

    public init(store: any Store, issuer: IssuerSettings, trail: OperatorTrail, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.issuer = issuer
        self.trail = trail
        self.now = now
    }

    /// The operators' work on the users of `store`, recorded in its own trail (the command line's).
    public init(store: any Store, issuer: IssuerSettings, now: @escaping @Sendable () -> Date = Date.init) {
        self.init(store: store, issuer: issuer, trail: OperatorTrail(store: store, issuer: issuer, now: now), now: now)
    }

    /// An exact lookup: at most one is given.
    public enum Lookup: Sendable, Equatable {
        case email(String), phone(String), userID(String), thumbprint(String), externalID(String)
    }

    /// The users every lookup names (none or one, but an external id alone may name several:
    /// the newest `limit`; `state`, given too, must hold for them), or without a lookup a page of
    /// users in `state`, newest first, after `cursor`; with the cursor of the next page when
    /// there is one. The event names each user disclosed (an event each). With lookups, an
    /// `emailPrefix` is one more condition on what they found (every filter given must hold).
    /// Throws `DomainError(.invalidField)` (`emailPrefix`) for a blank prefix.
    public func users(_ lookups: [Lookup], emailPrefix: String? = nil, state: UserStateFilter?, after cursor: UserPageCursor?,
                      limit: Int, for call: OperatorCall) async throws -> (users: [UserRecord], next: UserPageCursor?) {
        if !lookups.isEmpty {
            let prefix = emailPrefix.map(EmailAddress.normalized)
            if prefix?.isEmpty == true { throw DomainError.invalidField("emailPrefix", "emailPrefix must not be blank.") }
            // Read first, so the events name the users the lookup disclosed. Every lookup must
            // name the user: the answer is what they all name. The lookups of one user decide
            // first, and an external id is then compared with theirs, so a page's limit never
            // cuts the user they name out of an external id's list.
            let external = lookups.compactMap { lookup -> String? in
                if case .externalID(let id) = lookup { id } else { nil }
            }
            var found: [UserRecord]?
            for lookup in lookups where !external.contains(where: { lookup == .externalID($0) }) {
                let user = try await find(lookup)
                found = (found ?? user.map { [$0] } ?? []).filter { $0.id == user?.id }
            }
            var users: [UserRecord]
            if let found {
                users = found.filter { user in external.allSatisfy { user.externalId == $0 } }
                    .filter { user in state.map { Self.matches(user, $0) } ?? true }
            } else {
                // External ids only: the store reads the newest `limit` in `state`.
                users = try await store.users(issuer: issuer.id, externalID: external[0], state: state, limit: limit)
                    .filter { user in external.allSatisfy { user.externalId == $0 } }
            }
            // Byte by byte, as the prefix search compares (`AdminStore.users(issuer:emailPrefix:…)`).
            if let prefix { users = users.filter { $0.emailNormalized.utf8.starts(with: prefix.utf8) } }
            return try await trail.recorded(.admin(.listUsers), users: users.map(\.id), call: call) { (users, nil) }
        }
        return try await trail.recorded(.admin(.listUsers), user: nil, call: call) {
            // One row past the page says whether another page follows, without counting.
            let rows = try await store.users(issuer: issuer.id, state: state, after: cursor, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            let next = rows.count > limit ? page.last.map { UserPageCursor(createdAt: $0.createdAt, id: $0.id) } : nil
            return (page, next)
        }
    }

    /// Users whose address starts with `prefix` (trimmed, lower-cased), in `state` when given, by
    /// address after `afterEmail`, with the address to continue after when another page follows.
    /// Throws `DomainError(.invalidField)` (`emailPrefix`) for an empty prefix.
    public func users(emailPrefix prefix: String, state: UserStateFilter?, afterEmail: String?, limit: Int,
                      for call: OperatorCall) async throws -> (users: [UserRecord], next: String?) {
        let normalized = EmailAddress.normalized(prefix)
        guard !normalized.isEmpty else { throw DomainError.invalidField("emailPrefix", "emailPrefix must not be blank.") }
        return try await trail.recorded(.admin(.listUsers), user: nil, call: call) {
            let rows = try await store.users(issuer: issuer.id, emailPrefix: normalized, state: state, afterEmail: afterEmail, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            return (page, rows.count > limit ? page.last?.emailNormalized : nil)
        }
    }

    /// The user `reference` names, as the admin API reads one user (`getUser`): the console's
    /// confirmation of an action shows whom it is about. Throws `DomainError(.unknownUser)`.
    public func user(_ reference: OperatorTrail.UserReference, for call: OperatorCall) async throws -> UserRecord {
        try await trail.recorded(.admin(.getUser), user: reference, call: call) { user, _ in user }
    }

    /// Whether `user` is in `state` (as `AdminStore.users` filters).
    static func matches(_ user: UserRecord, _ state: UserStateFilter) -> Bool {
        switch state {
        case .active: user.status == .active && !user.locked
        case .locked: user.locked
        case .deactivated: user.status != .active
        case .unverified: !user.emailVerified
        }
    }

    /// One user with every reason it cannot log in, its devices and live sessions.
    /// Throws `DomainError(.unknownUser)`.
    public func detail(userID: String, for call: OperatorCall) async throws -> UserDetail {
        try await trail.recorded(.admin(.getUser), user: .id(userID), call: call) { user, _ in
            let time = now()
            let devices = try await store.devices(userID: user.id)
            // One row past the list says whether more are live, without counting them.
            let sessions = try await store.liveSessions(
                userID: user.id, now: time, idleBefore: time.addingTimeInterval(-TimeInterval(issuer.sessions.idleTimeoutSeconds)),
                limit: Self.sessionsListed + 1)
            let lockout = try await store.unlinkedLockout(userID: user.id, now: time)
            let tokens = try await store.liveDeviceTokens(userID: user.id, now: time, limit: Self.deviceTokensListed)
            let certificates = try await store.newestCertificates(userID: user.id, limit: Self.certificatesRead)
            // The user's doings and operators' changes: operators' reads of the user (this one
            // too) would soon be all the list showed.
            let events = try await store.auditEvents(matching: AuditEventFilter(userID: user.id, excludingReads: true), before: nil,
                                                     scan: Self.eventsListed).events
            return UserDetail(user: user, loginBlocks: LoginBlock.all(user: user, devices: devices, unlinkedLockout: lockout,
                                                                       issuer: issuer, now: time),
                              devices: devices, certificates: certificates, sessions: Array(sessions.prefix(Self.sessionsListed)),
                              moreSessions: sessions.count > Self.sessionsListed, deviceTokens: tokens, events: events,
                              privilegedSeconds: issuer.sessions.privilegedSeconds)
        }
    }

    /// The user a lookup of one user names (`externalID` is compared by `users(_:…)`).
    private func find(_ lookup: Lookup) async throws -> UserRecord? {
        let user: UserRecord?
        switch lookup {
        case .externalID: return nil
        case .email(let email): user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email))
        case .phone(let phone):
            // Phone sign-ups keep the E.164 number as it was verified.
            guard PhoneNumber.isValid(phone) else {
                throw DomainError(.invalidField, message: "phone must be an E.164 number (send + as %2B).", field: "phone")
            }
            user = try await store.user(issuer: issuer.id, phoneNormalized: phone)
        case .userID(let id): user = try await store.user(id: id)
        case .thumbprint(let thumbprint):
            guard let device = try await store.deviceOwner(deviceID: "jkt:" + thumbprint) else { return nil }
            user = try await store.user(id: device.userID)
        }
        return user?.issuer == issuer.id ? user : nil
    }
}
