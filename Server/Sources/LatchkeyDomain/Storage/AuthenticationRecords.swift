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
    /// The app's name for the device (`X-Device-ID` when it was linked).
    public var label: String?
    /// The app's and the SDK's versions at the device's latest login.
    public var applicationVersion: String?
    public var sdkVersion: String?

    /// The thumbprint of the device's key, when the device is a key (`jkt:` + thumbprint).
    public var keyThumbprint: String? {
        deviceID.hasPrefix(DeviceKeyID.prefix) ? String(deviceID.dropFirst(DeviceKeyID.prefix.count)) : nil
    }

    public init(userID: String, deviceID: String, deviceType: String?, status: DeviceStatus = .active, failedAttempts: Int = 0,
                linkedAt: Date, lastLoginAt: Date? = nil, label: String? = nil, applicationVersion: String? = nil,
                sdkVersion: String? = nil) {
        self.label = label
        self.applicationVersion = applicationVersion
        self.sdkVersion = sdkVersion
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
    /// The RFC 7638 thumbprint of the device key the session is bound to (RFC 9449 `cnf.jkt`):
    /// set when the login carried a DPoP proof; the token then works only with proofs by that key.
    public var keyThumbprint: String?
    /// A phone sign-up's session before its device key is registered: it works only on Kratos's
    /// whoami, the key registration and logout.
    public var limited: Bool
    /// When the login that opened the session checked a knowledge factor (password, PIN, MFA
    /// answer); nil for a device-token, nonce, SSO or phone sign-up session. Privileged changes
    /// need it within `issuer.sessions.privilegedSeconds`.
    public var factorCheckedAt: Date?

    public init(digest: String, userID: String, deviceID: String?, createdAt: Date, lastSeenAt: Date, expiresAt: Date,
                revokedAt: Date? = nil, keyThumbprint: String? = nil, limited: Bool = false, factorCheckedAt: Date? = nil) {
        self.factorCheckedAt = factorCheckedAt
        self.keyThumbprint = keyThumbprint
        self.limited = limited
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
