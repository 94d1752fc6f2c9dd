import Foundation
import LatchkeyCore

/// The admin API's operations on wallets (issue 25): find users, see every reason one cannot log
/// in, lift locks, end sessions. Each call is done for an operator key and recorded as an
/// `operator.command` event naming it (reads too). Knows no HTTP; refuses with `DomainError`.
public struct AdminService: Sendable {
    public typealias Store = UserStore & DeviceStore & SessionStore & CredentialStore & AttemptStore & AuditStore & AdminStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let now: @Sendable () -> Date
    /// The most sessions a user's detail lists (the most recently seen).
    public static let sessionsListed = 100

    public init(store: any Store, issuer: IssuerSettings, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.issuer = issuer
        self.now = now
    }

    /// An exact lookup: at most one is given.
    public enum Lookup: Sendable, Equatable {
        case email(String), phone(String), userID(String), thumbprint(String)
    }

    /// The user `lookup` names (zero or one), or a page of users in `state`, newest first, after
    /// `cursor`; with the cursor of the next page when there is one.
    public func users(_ lookup: Lookup?, state: UserStateFilter?, after cursor: UserPageCursor?, limit: Int,
                      for key: OperatorKeyRecord) async throws -> (users: [UserRecord], next: UserPageCursor?) {
        try await recorded("listUsers", key: key) {
            if let lookup { return (try await find(lookup).map { [$0] } ?? [], nil) }
            // One row past the page says whether another page follows, without counting.
            let rows = try await store.users(issuer: issuer.id, state: state, after: cursor, limit: limit + 1)
            let page = Array(rows.prefix(limit))
            let next = rows.count > limit ? page.last.map { UserPageCursor(createdAt: $0.createdAt, id: $0.id) } : nil
            return (page, next)
        }
    }

    /// One user with every reason it cannot log in, its devices and live sessions.
    /// Throws `DomainError(.unknownUser)`.
    public func detail(userID: String, for key: OperatorKeyRecord) async throws -> UserDetail {
        try await recorded("getUser", userID: userID, key: key) { user, _ in
            let time = now()
            let devices = try await store.devices(userID: user.id)
            let sessions = try await store.liveSessions(
                userID: user.id, now: time, idleBefore: time.addingTimeInterval(-TimeInterval(issuer.sessions.idleTimeoutSeconds)),
                limit: Self.sessionsListed)
            let lockout = try await store.unlinkedLockout(userID: user.id, now: time)
            return UserDetail(user: user, loginBlocks: LoginBlock.all(user: user, devices: devices, unlinkedLockout: lockout,
                                                                       issuer: issuer, now: time),
                              devices: devices, sessions: sessions, privilegedSeconds: issuer.sessions.privilegedSeconds)
        }
    }

    /// Sets the operator lock. Throws `DomainError(.unknownUser)`.
    public func lock(userID: String, for key: OperatorKeyRecord) async throws {
        try await recorded("lockUser", userID: userID, key: key) { user, store in
            try await store.setLocked(userID: user.id, locked: true)
        }
    }

    /// Lifts every lock: the operator lock, a deactivation (its failure count cleared) and the
    /// smart lockout of unlinked devices. Throws `DomainError(.unknownUser)`.
    public func unlock(userID: String, for key: OperatorKeyRecord) async throws {
        try await recorded("unlockUser", userID: userID, key: key) { user, store in
            if user.locked { try await store.setLocked(userID: user.id, locked: false) }
            if user.status != .active || user.failedAttempts > 0 {
                try await store.setUserStatus(userID: user.id, status: .active, now: now())
            }
            try await store.clearUnlinkedAttempts(userID: user.id)
        }
    }

    /// Ends every session and device token of the user. Throws `DomainError(.unknownUser)`.
    public func endSessions(userID: String, for key: OperatorKeyRecord) async throws {
        try await recorded("endUserSessions", userID: userID, key: key) { user, store in
            try await store.revokeSessions(userID: user.id, except: nil, deviceID: nil, now: now())
            try await store.revokeDeviceTokens(userID: user.id, now: now())
        }
    }

    private func find(_ lookup: Lookup) async throws -> UserRecord? {
        let user: UserRecord?
        switch lookup {
        case .email(let email): user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email))
        case .phone(let phone):
            // Phone sign-ups keep the E.164 number as it was verified.
            guard PhoneNumber.isValid(phone) else { return nil }
            user = try await store.user(issuer: issuer.id, phoneNormalized: phone)
        case .userID(let id): user = try await store.user(id: id)
        case .thumbprint(let thumbprint):
            guard let device = try await store.deviceOwner(deviceID: "jkt:" + thumbprint) else { return nil }
            user = try await store.user(id: device.userID)
        }
        return user?.issuer == issuer.id ? user : nil
    }

    /// Runs an admin call about a user in its own audit scope: its `operator.command` event names
    /// the call, the key (id and name) and the user, recorded before the change so that a change
    /// writes it in its own transaction; a user that does not exist (or is another issuer's) is a
    /// failed event with the id asked for, and `DomainError(.unknownUser)`.
    private func recorded<T: Sendable>(_ command: String, userID: String, key: OperatorKeyRecord,
                                       _ body: (UserRecord, any Store) async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, store: store) { trail in
            var details = Self.details(command, key)
            guard let user = try await store.user(id: userID), user.issuer == issuer.id else {
                details["userId"] = String(userID.prefix(64))
                trail.record(.operatorCommand, user: nil, outcome: .failure, details: details, at: now())
                throw DomainError(.unknownUser, field: "userId")
            }
            trail.record(.operatorCommand, user: user.id, details: details, at: now())
            return try await body(user, store.recording(into: trail))
        }
    }

    /// Runs an admin call about no one user (a lookup, a page) in its own audit scope.
    private func recorded<T: Sendable>(_ command: String, key: OperatorKeyRecord, _ body: () async throws -> T) async throws -> T {
        try await AuditTrail.run(actor: .operator, store: store) { trail in
            trail.record(.operatorCommand, user: nil, details: Self.details(command, key), at: now())
            return try await body()
        }
    }

    private static func details(_ command: String, _ key: OperatorKeyRecord) -> [String: String] {
        ["command": "admin \(command)", "operatorKey": key.id, "operator": key.name]
    }
}
