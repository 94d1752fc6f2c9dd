import Foundation
import LatchkeyCore

/// The admin API's operations on wallets (issue 25): find users, see every reason one cannot log
/// in, lift locks, end sessions. Each call is done for an operator key and recorded as an
/// `operator.command` event naming it (reads too). Knows no HTTP; refuses with `DomainError`.
public struct AdminService: Sendable {
    public typealias Store = UserStore & DeviceStore & SessionStore & CredentialStore & AttemptStore & AuditStore & AdminStore
        & AdminAuditStore
        & AdminActionStore & OutboxStore & ImportStore & OperatorKeyStore & ConsoleStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let outbox: OutboxWriter
    package let verifier: CredentialVerifier
    package let importer: UserImporter
    package let now: @Sendable () -> Date
    let importSlot = ImportSlot()
    /// The most sessions a user's detail lists (the most recently seen).
    public static let sessionsListed = 100
    /// The most device tokens and certificates a user's detail reads, and the events it lists.
    public static let deviceTokensListed = 100, certificatesRead = 200, eventsListed = 20

    package init(store: any Store, issuer: IssuerSettings, outbox: OutboxWriter, verifier: CredentialVerifier, importer: UserImporter,
                 now: @escaping @Sendable () -> Date) {
        self.store = store
        self.issuer = issuer
        self.outbox = outbox
        self.verifier = verifier
        self.importer = importer
        self.now = now
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
            return try await recorded(.admin(.listUsers), users: users.map(\.id), call: call) { (users, nil) }
        }
        return try await recorded(.admin(.listUsers), user: nil, call: call) {
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
        return try await recorded(.admin(.listUsers), user: nil, call: call) {
            let rows = try await store.users(issuer: issuer.id, emailPrefix: normalized, state: state, afterEmail: afterEmail, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            return (page, rows.count > limit ? page.last?.emailNormalized : nil)
        }
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

    /// Events of the audit trail matching `filter`, newest first, before the event `before`; with
    /// the id to continue from when another page may follow. A page reads `limit + 1` events at
    /// most (`AdminAuditStore.auditEvents`): a filter that combines conditions may answer fewer
    /// than `limit`, even none, and a next page.
    public func events(_ filter: AuditEventFilter, before: String?, limit: Int,
                       for call: OperatorCall) async throws -> (events: [AuditEvent], next: String?) {
        try await recorded(.admin(.listEvents), user: filter.userID, call: call) {
            // A page reads one event past it: with one condition every event read matches and
            // the one past says whether a page follows; combined conditions may leave a page
            // short (even empty) with a next page, which continues where the reading stopped.
            let (rows, lastRead) = try await store.auditEvents(matching: filter, before: before, scan: limit + 1)
            let page = Array(rows.prefix(limit))
            return (page, rows.count > limit ? page.last?.id : lastRead)
        }
    }

    /// One user with every reason it cannot log in, its devices and live sessions.
    /// Throws `DomainError(.unknownUser)`.
    public func detail(userID: String, for call: OperatorCall) async throws -> UserDetail {
        try await recorded(.admin(.getUser), userID: userID, call: call) { user, _, _ in
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

    /// Sets the operator lock. Throws `DomainError(.unknownUser)`.
    public func lock(userID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.lockUser), userID: userID, call: call) { user, store, _ in
            try await store.setLocked(userID: user.id, locked: true)
        }
    }

    /// Lifts the locks, in one transaction: the operator lock, the failure count, a deactivation
    /// that failures caused (of the wallet, and of each device), the smart lockout of unlinked
    /// devices. A deactivation by an operator is not a lock: it stays (`AdminStore.unlockUser`).
    /// Throws `DomainError(.unknownUser)`.
    public func unlock(userID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.unlockUser), userID: userID, call: call) { user, store, _ in
            _ = try await store.unlockUser(userID: user.id, limits: issuer.attemptLimits, now: now())
        }
    }

    /// Ends every session and device token of the user, in one transaction. Throws `DomainError(.unknownUser)`.
    public func endSessions(userID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.endUserSessions), userID: userID, call: call) { user, store, _ in
            try await store.endUserSessions(userID: user.id, now: now())
        }
    }

    /// Records a call the edge refused to a known key or operator (its role is below the
    /// operation's): a failed `operator.command` whose `refused` is the caller's role, about the
    /// user the call named (`userID`, the path's), so it is among that user's events; an id that
    /// names no user of the issuer is kept in the `userId` detail instead, as `recorded` keeps it.
    /// Throws what the database throws.
    public func refused(_ operation: AdminOperation, userID: String? = nil, for call: OperatorCall) async throws {
        try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var details = Self.details(.admin(operation), call)
            details["refused"] = call.role.rawValue
            var user: String?
            if let userID {
                if let found = try await store.user(id: userID), found.issuer == issuer.id { user = found.id }
                else { details["userId"] = String(userID.prefix(64)) }
            }
            trail.record(.operatorCommand, user: user, outcome: .failure, details: details, at: now())
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

    /// Runs an admin call about a user in its own audit scope: its `operator.command` event names
    /// the call, the operator (key or console account), the client address and the user, recorded before
    /// the change so that a change writes it in its own transaction; a user that does not exist (or
    /// is another issuer's) is a failed event with the id asked for, and `DomainError(.unknownUser)`.
    /// A body that refuses before it writes (an unknown device) leaves a failed event naming the
    /// error instead of what it recorded.
    package func recorded<T: Sendable>(_ command: OperatorCommand, userID: String, call: OperatorCall,
                                       _ body: (UserRecord, any Store, AuditTrail) async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var details = Self.details(command, call)
            guard let user = try await store.user(id: userID), user.issuer == issuer.id else {
                details["userId"] = String(userID.prefix(64))
                trail.record(.operatorCommand, user: nil, outcome: .failure, details: details, at: now())
                throw DomainError(.unknownUser, field: "userId")
            }
            // No device on the operator's own event: it is never redacted (an erasure leaves it),
            // so it names the user by its id only; the change's own events name the device.
            let reason: AuditReason? = command.readsUsers ? .read : nil
            trail.record(.operatorCommand, user: user.id, reason: reason, details: details, at: now())
            do {
                return try await body(user, store.recording(into: trail), trail)
            } catch let error as DomainError {
                // Still pending: nothing was written, so what the body recorded did not happen.
                if trail.take().first?.type == .operatorCommand {
                    details["error"] = error.id.rawValue
                    trail.record(.operatorCommand, user: user.id, outcome: .failure, reason: reason, details: details, at: now())
                }
                throw error
            }
        }
    }

    /// Runs a call that is about no one user (or reads one) in its own audit scope, its event
    /// about `user` when it concerns one; a refusal is a failed event naming the error.
    package func recorded<T: Sendable>(_ command: OperatorCommand, user: String?, call: OperatorCall,
                                       _ body: () async throws -> T) async throws -> T {
        try await recorded(command, users: user.map { [$0] } ?? [], call: call, body)
    }

    /// As `recorded(_:user:call:_:)`, with an event for each user the call disclosed (one about
    /// no user when it disclosed none), so each user's trail shows who looked it up.
    package func recorded<T: Sendable>(_ command: OperatorCommand, users: [String], call: OperatorCall,
                                       _ body: () async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var details = Self.details(command, call)
            let named: [String?] = users.isEmpty ? [nil] : users
            let reason: AuditReason? = command.readsUsers ? .read : nil
            for user in named { trail.record(.operatorCommand, user: user, reason: reason, details: details, at: now()) }
            do {
                return try await body()
            } catch let error as DomainError {
                if trail.take().first?.type == .operatorCommand {
                    details["error"] = error.id.rawValue
                    for user in named {
                        trail.record(.operatorCommand, user: user, outcome: .failure, reason: reason, details: details, at: now())
                    }
                }
                throw error
            }
        }
    }

    /// The event details of `command` done by `call`: the command and who asked.
    package static func details(_ command: OperatorCommand, _ call: OperatorCall) -> [String: String] {
        call.details.merging(command.details) { _, command in command }
    }
}
