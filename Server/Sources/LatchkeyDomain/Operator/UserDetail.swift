import Foundation

/// One user as the admin API shows it: every reason it cannot log in, its devices with their
/// newest certificates, its live sessions (the most recently seen `UserAdministration.sessionsListed`),
/// live device tokens and newest events. Each list but the devices (a wallet has few) is read with
/// a limit, so a user with thousands of sessions costs what one with a hundred does.
public struct UserDetail: Sendable {
    public var user: UserRecord
    public var loginBlocks: [LoginBlock]
    public var devices: [DeviceRecord]
    /// Each device's newest certificate, by device id.
    public var certificates: [String: DeviceCertificateRecord]
    public var sessions: [SessionRecord]
    /// More sessions are live than `sessions` lists.
    public var moreSessions: Bool
    public var deviceTokens: [DeviceTokenRecord]
    /// The user's newest events (`UserAdministration.eventsListed`).
    public var events: [AuditEvent]
    /// How long after its login a session stays privileged (`issuer.sessions.privilegedSeconds`).
    public var privilegedSeconds: Int

    /// Until when a session may make privileged changes, when its login checked a factor.
    public func privilegedUntil(_ session: SessionRecord) -> Date? {
        session.factorCheckedAt.map { $0.addingTimeInterval(TimeInterval(privilegedSeconds)) }
    }
}

/// A reason a user cannot log in, or cannot log in from some devices, or cannot change a credential.
public struct LoginBlock: Sendable, Equatable {
    public enum Reason: String, Sendable {
        case walletDeactivated = "wallet_deactivated", operatorLock = "operator_lock"
        case deviceDeactivated = "device_deactivated", deviceSuspended = "device_suspended"
        case unlinkedDevicesLocked = "unlinked_devices_locked", passwordExpired = "password_expired"
        case emailNotVerified = "email_not_verified"
    }

    public var reason: Reason
    public var message: String
    public var deviceID: String?
    public var until: Date?

    /// Every block on `user` at `now`, the wallet's first.
    static func all(user: UserRecord, devices: [DeviceRecord], unlinkedLockout: Date?, issuer: IssuerSettings, now: Date) -> [LoginBlock] {
        var blocks: [LoginBlock] = []
        if user.status == .deactivated {
            // As `AdminStore.unlockUser` tells them apart: failures reached the threshold, or an operator.
            blocks.append(LoginBlock(reason: .walletDeactivated, message: user.failedAttempts >= issuer.attemptLimits.wallet
                ? "Deactivated after \(user.failedAttempts) consecutive failed logins; no login works until it is unlocked."
                : "Deactivated by an operator; no login works until it is reactivated (unlock does not lift it)."))
        }
        if user.locked {
            blocks.append(LoginBlock(reason: .operatorLock, message: "The operator lock: credential changes are refused (424)."))
        }
        if let unlinkedLockout {
            blocks.append(LoginBlock(reason: .unlinkedDevicesLocked,
                                     message: "Devices not linked to the wallet cannot log in (smart lockout after failures).",
                                     until: unlinkedLockout))
        }
        if let expiry = issuer.passwordExpiry(of: user), expiry <= now {
            blocks.append(LoginBlock(reason: .passwordExpired, message: "The password expired; logins answer 508 until it is changed.",
                                     until: expiry))
        }
        if issuer.emailVerificationRequired, !user.emailVerified {
            blocks.append(LoginBlock(reason: .emailNotVerified, message: "The email address is not verified; logins by email answer 418."))
        }
        for device in devices where device.status != .active {
            let message = switch device.status {
            case .suspended: "The device is suspended by an operator."
            case _ where device.failedAttempts >= issuer.attemptLimits.device:
                "The device is deactivated after \(device.failedAttempts) failed logins; unlock lifts it."
            default: "The device is deactivated by an operator; unlock does not lift it."
            }
            blocks.append(LoginBlock(reason: device.status == .suspended ? .deviceSuspended : .deviceDeactivated,
                                     message: message, deviceID: device.deviceID))
        }
        return blocks
    }
}
