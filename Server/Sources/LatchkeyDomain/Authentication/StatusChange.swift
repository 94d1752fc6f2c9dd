import Foundation

/// What setting a wallet's status does besides the status itself. Decided here, not in SQL, so
/// the store applies one explicit change and every caller (operator, lockout, tests) gets the
/// same rule.
public struct UserStatusChange: Sendable, Equatable {
    public let status: UserStatus
    /// Reactivation forgives the failures that led to the deactivation.
    public let clearsFailures: Bool
    /// A deactivated wallet keeps no live session.
    public let endsSessions: Bool
}

/// What setting a linked device's status does besides the status itself.
public struct DeviceStatusChange: Sendable, Equatable {
    public let status: DeviceStatus
    /// Reactivation forgives the device's failures.
    public let clearsFailures: Bool
    /// A deactivated or suspended device keeps no live session.
    public let endsSessions: Bool
    /// A deactivated device's certificates are revoked (a suspension is temporary and keeps them).
    public let revokesCertificates: Bool
}

extension UserStatus {
    /// The change that moves a wallet to this status.
    public var change: UserStatusChange {
        UserStatusChange(status: self, clearsFailures: self == .active, endsSessions: self != .active)
    }
}

extension DeviceStatus {
    /// The change that moves a device to this status.
    public var change: DeviceStatusChange {
        DeviceStatusChange(status: self, clearsFailures: self == .active, endsSessions: self != .active,
                           revokesCertificates: self == .deactivated)
    }
}

extension UserStore {
    /// Moves a wallet to `status` under the domain's rule (`UserStatus.change`).
    public func setUserStatus(userID: String, status: UserStatus, now: Date) async throws {
        try await setUserStatus(userID: userID, change: status.change, now: now)
    }
}

extension DeviceStore {
    /// Moves a device to `status` under the domain's rule (`DeviceStatus.change`).
    public func setDeviceStatus(userID: String, deviceID: String, status: DeviceStatus, now: Date) async throws {
        try await setDeviceStatus(userID: userID, deviceID: deviceID, change: status.change, now: now)
    }
}
