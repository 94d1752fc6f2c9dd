import Foundation
import LatchkeyCore

/// The authentication module: logins, MFA prompts, sessions, device tokens and lockout.
/// Knows no HTTP; every refusal is a `DomainError` with the spec's code.
public struct AuthenticationService: Sendable {
    let store: any LatchkeyStore
    let hasher: SecretHasher
    let issuer: IssuerSettings
    let limiter: RateLimiter
    let rateLimits: RateLimitSettings
    let now: @Sendable () -> Date

    /// How long an MFA challenge may be answered.
    static let challengeLifetime: TimeInterval = 300

    public init(store: any LatchkeyStore, hasher: SecretHasher, issuer: IssuerSettings, limiter: RateLimiter,
                rateLimits: RateLimitSettings, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.hasher = hasher
        self.issuer = issuer
        self.limiter = limiter
        self.rateLimits = rateLimits
        self.now = now
    }

    /// Checks a secret against a hash under the lockout rules: an attempt is reserved before the
    /// hash is computed, a failure may deactivate the wallet (421) or the device (423), a success
    /// gives the attempt back (the counts reset only when a login completes, in `startSession`).
    /// Sessions of what gets deactivated are revoked.
    /// A right credential whose hash was made with weaker parameters than the configured ones is
    /// hashed again and stored as `credential` (DESIGN §6: upgraded at the next successful check).
    func checkCredential(_ secret: String, against hash: String?, user: UserRecord, deviceID: String?,
                         wrong: DomainError = .wrongCredentials, credential: StoredCredential? = nil) async throws {
        if user.status != .active { throw DomainError.walletDeactivated }
        if rateLimits.enabled,
           !limiter.allow("account:" + user.id, limit: rateLimits.credentialAttemptsPerMinutePerAccount) {
            throw DomainError(.rateLimited, retryAfter: limiter.retryAfter)
        }
        let linked = try await linkedDevice(user: user, deviceID: deviceID)
        switch try await store.reserveAttempt(userID: user.id, deviceID: linked, limits: issuer.attemptLimits) {
        case .reserved: break
        case .walletLocked: throw DomainError.walletDeactivated
        case .deviceLocked: throw DomainError.deviceDeactivated
        case .deviceSuspended: throw DomainError.deviceSuspended
        case .exhausted: throw DomainError.attemptsInFlight
        }
        guard let hash, try await hasher.verify(secret, against: hash) else {
            let outcome = try await store.recordFailure(userID: user.id, deviceID: linked, limits: issuer.attemptLimits, now: now())
            if outcome.walletDeactivated { throw DomainError.walletDeactivated }
            if outcome.deviceDeactivated { throw DomainError.deviceDeactivated }
            throw wrong
        }
        try await store.releaseAttempt(userID: user.id, deviceID: linked)
        if let credential, hasher.needsUpgrade(hash) {
            try await store.upgradeHash(userID: user.id, credential: credential, hash: try await hasher.hash(secret))
        }
    }

    /// The device id when the device is linked to the user; refuses a suspended or deactivated one.
    func linkedDevice(user: UserRecord, deviceID: String?) async throws -> String? {
        guard let deviceID, let device = try await store.device(userID: user.id, deviceID: deviceID) else { return nil }
        try Self.requireUsable(device)
        return deviceID
    }

    /// Refuses a suspended (503) or deactivated (423) device.
    static func requireUsable(_ device: DeviceRecord) throws {
        switch device.status {
        case .suspended: throw DomainError.deviceSuspended
        case .deactivated: throw DomainError.deviceDeactivated
        default: break
        }
    }

    /// The checks after a right credential: email verification (418), app-instance verification
    /// (511) and password expiry (508).
    /// A login by phone number (`byEmail` false) does not need the email verified.
    func requireVerified(_ user: UserRecord, byEmail: Bool = true) throws {
        if byEmail && issuer.emailVerificationRequired && !user.emailVerified { throw DomainError.emailNotVerified }
        if !user.appInstanceVerified { throw DomainError.appInstanceNotVerified }
        if let expiresAt = passwordExpiry(user), expiresAt <= now() { throw DomainError.passwordExpired }
    }

    /// When the user's password expires; nil when passwords do not expire or the user has none (SSO).
    func passwordExpiry(_ user: UserRecord) -> Date? {
        guard issuer.passwordExpiryDays > 0, user.passwordHash != nil else { return nil }
        return (user.passwordUpdatedAt ?? user.createdAt).addingTimeInterval(TimeInterval(issuer.passwordExpiryDays) * 86_400)
    }

    /// Logs the user in on a linked device, or prompts for an MFA answer on an unlinked one.
    func finish(_ user: UserRecord, device: DeviceContext, linkDevice: Bool = false) async throws -> LoginOutcome {
        guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
        if let linked = try await store.device(userID: user.id, deviceID: deviceID) {
            try Self.requireUsable(linked)
        } else if linkDevice {
            try await store.linkDevice(userID: user.id, deviceID: deviceID, deviceType: device.deviceType, now: now())
        } else {
            return try await prompt(user, deviceID: deviceID)
        }
        return try await startSession(user, deviceID: deviceID)
    }

    /// Creates the MFA challenge for one of the user's questions, chosen at random.
    func prompt(_ user: UserRecord, deviceID: String) async throws -> LoginOutcome {
        guard let question = try await store.mfaAnswers(userID: user.id).randomElement()?.question else {
            throw DomainError.wrongCredentials
        }
        let token = SecureRandom.token()
        let time = now()
        try await store.createToken(TokenRecord(digest: SecureRandom.digest(token), purpose: .mfaChallenge, userID: user.id,
                                                deviceID: deviceID, createdAt: time,
                                                expiresAt: time.addingTimeInterval(Self.challengeLifetime), data: question))
        return .mfaRequired(question: question, challengeToken: token)
    }

    /// A new session token and its record (not stored yet), living the issuer's absolute timeout.
    func newSession(userID: String, deviceID: String?, at time: Date) -> (token: String, session: SessionRecord) {
        let token = SecureRandom.token()
        return (token, SessionRecord(digest: SecureRandom.digest(token), userID: userID, deviceID: deviceID, createdAt: time,
                                     lastSeenAt: time,
                                     expiresAt: time.addingTimeInterval(TimeInterval(issuer.sessions.absoluteTimeoutSeconds))))
    }

    /// Completes a login: resets the failure counts, records the login time, stores a new session.
    func openSession(_ user: UserRecord, deviceID: String?) async throws -> (token: String, session: SessionRecord) {
        let time = now()
        let opened = newSession(userID: user.id, deviceID: deviceID, at: time)
        try await store.recordSuccess(userID: user.id, deviceID: deviceID, loginAt: time)
        try await store.createSession(opened.session)
        return opened
    }

    /// A new session on the device, with the attributes the spec mentions; records the login time.
    func startSession(_ user: UserRecord, deviceID: String?) async throws -> LoginOutcome {
        let token = try await openSession(user, deviceID: deviceID).token
        var attributes: [String: String] = [:]
        if user.passwordHash != nil { attributes["lastPasswordUpdate"] = Self.timestamp(user.passwordUpdatedAt ?? user.createdAt) }
        if let last = user.lastLoginAt { attributes["lastLogin"] = Self.timestamp(last) }
        if let expiry = passwordExpiry(user) { attributes["passwordExpiresAt"] = Self.timestamp(expiry) }
        return .authenticated(sessionToken: token, customerUri: EnrollmentService.customerURI(user.id),
                              additionalAttributes: attributes)
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
