import Foundation

/// A device linked to a user. `status` is `active`, `deactivated` (lockout, 423) or `suspended` (503).
public struct DeviceRecord: Sendable, Equatable {
    public var userID: String
    public var deviceID: String
    public var deviceType: String?
    public var status: DeviceStatus
    public var failedAttempts: Int
    public var linkedAt: Date
    public var lastLoginAt: Date?

    public init(userID: String, deviceID: String, deviceType: String?, status: DeviceStatus = .active, failedAttempts: Int = 0,
                linkedAt: Date, lastLoginAt: Date? = nil) {
        self.userID = userID
        self.deviceID = deviceID
        self.deviceType = deviceType
        self.status = status
        self.failedAttempts = failedAttempts
        self.linkedAt = linkedAt
        self.lastLoginAt = lastLoginAt
    }
}

/// A login session, stored only as the digest of its token.
public struct SessionRecord: Sendable, Equatable {
    public var digest: String
    public var userID: String
    public var deviceID: String?
    public var createdAt: Date
    public var lastSeenAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?

    public init(digest: String, userID: String, deviceID: String?, createdAt: Date, lastSeenAt: Date, expiresAt: Date,
                revokedAt: Date? = nil) {
        self.digest = digest
        self.userID = userID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// A long-lived device authentication token, bound to one device, stored only as a digest.
public struct DeviceTokenRecord: Sendable, Equatable {
    public var digest: String
    public var userID: String
    public var deviceID: String
    public var createdAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?

    public init(digest: String, userID: String, deviceID: String, createdAt: Date, expiresAt: Date, revokedAt: Date? = nil) {
        self.digest = digest
        self.userID = userID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// The outcome of reserving a credential check.
public enum AttemptReservation: Sendable, Equatable {
    /// The attempt is counted; the check may go ahead.
    case reserved
    /// The wallet is deactivated or has no attempts left (421).
    case walletLocked
    /// The device is deactivated or has no attempts left (423).
    case deviceLocked
    /// The device is suspended (503).
    case deviceSuspended
    /// The wallet or device is active but every attempt up to its limit is in flight (429).
    case exhausted
}

/// Thresholds of consecutive failures.
public struct AttemptLimits: Sendable, Equatable {
    public var wallet: Int
    public var device: Int
    public init(wallet: Int, device: Int) {
        self.wallet = wallet
        self.device = device
    }
}

/// What a failed check changed.
public struct FailureOutcome: Sendable, Equatable {
    public var walletDeactivated: Bool
    public var deviceDeactivated: Bool
    public init(walletDeactivated: Bool, deviceDeactivated: Bool) {
        self.walletDeactivated = walletDeactivated
        self.deviceDeactivated = deviceDeactivated
    }
}

/// Sessions, devices, device tokens and the lockout counters.
public protocol AuthenticationStore: Sendable {
    /// Counts an attempt against the wallet (and the device, when it is linked) before the
    /// credential is checked, atomically: once `limits` is reached no further attempt is reserved,
    /// however many run in parallel.
    func reserveAttempt(userID: String, deviceID: String?, limits: AttemptLimits) async throws -> AttemptReservation
    /// After a wrong credential: deactivates the wallet or device whose count reached its limit.
    func recordFailure(userID: String, deviceID: String?, limits: AttemptLimits, now: Date) async throws -> FailureOutcome
    /// After a right credential: gives the reserved attempt back, leaving earlier failures counted
    /// (a right password that only leads to an MFA prompt must not wipe wrong answers).
    func releaseAttempt(userID: String, deviceID: String?) async throws
    /// After a completed login: resets the consecutive counts and, when given, records the login time.
    func recordSuccess(userID: String, deviceID: String?, loginAt: Date?) async throws

    /// Sets a user's status (`active`, `deactivated`); `active` also clears the failure count.
    func setUserStatus(userID: String, status: UserStatus, now: Date) async throws
    /// Marks the app instance verified (nonce login or email verification).
    func markAppInstanceVerified(userID: String) async throws
    /// Marks the user's email address verified.
    func markEmailVerified(userID: String) async throws
    /// Users of an issuer, newest first.
    func users(issuer: String, limit: Int, offset: Int) async throws -> [UserRecord]

    /// The device link of a user, if any.
    func device(userID: String, deviceID: String) async throws -> DeviceRecord?
    /// The devices of a user.
    func devices(userID: String) async throws -> [DeviceRecord]
    /// The user most recently linked to a device (PIN login identifies the user by device).
    func deviceOwner(deviceID: String) async throws -> DeviceRecord?
    /// Links a device to a user (idempotent).
    func linkDevice(userID: String, deviceID: String, deviceType: String?, now: Date) async throws
    /// Sets a device's status (`active`, `deactivated`, `suspended`); `active` also clears its count.
    func setDeviceStatus(userID: String, deviceID: String, status: DeviceStatus, now: Date) async throws

    /// Stores a single-use token with optional data (e.g. the question of an MFA challenge).
    func createToken(_ token: TokenRecord) async throws
    /// An unused, unexpired token, without consuming it.
    func token(digest: String, purpose: TokenPurpose, now: Date) async throws -> TokenRecord?

    /// Stores a new session.
    func createSession(_ session: SessionRecord) async throws
    /// The live session with this digest: not revoked, not past its absolute expiry, and seen
    /// within `idle`; its last-seen time moves to `now` (recorded at most every 30 seconds).
    func touchSession(digest: String, now: Date, idle: TimeInterval) async throws -> SessionRecord?
    /// Revokes one session; answers whether it was live.
    @discardableResult func revokeSession(digest: String, now: Date) async throws -> Bool
    /// Revokes the user's sessions (all, or all but one; or those of one device).
    func revokeSessions(userID: String, except: String?, deviceID: String?, now: Date) async throws

    /// Stores a device token.
    func createDeviceToken(_ token: DeviceTokenRecord) async throws
    /// The device token with this digest, live or not.
    func deviceToken(digest: String) async throws -> DeviceTokenRecord?
    /// Revokes a device token; answers whether it was live at `now`.
    @discardableResult func revokeDeviceToken(digest: String, now: Date) async throws -> Bool
    /// Revokes every device token of a user.
    func revokeDeviceTokens(userID: String, now: Date) async throws
}
