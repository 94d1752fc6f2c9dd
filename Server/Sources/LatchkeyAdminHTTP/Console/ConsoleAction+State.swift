import Foundation
import LatchkeyDomain

/// Which actions a user's page offers: only those that would change something for the user as its
/// detail shows it (the detail the admin API's reasons a login fails come from), so an operator is
/// never offered to unlock what is not locked or to verify what is verified. The confirmation and
/// the action themselves still accept any (the admin API answers what does not apply).
extension ConsoleAction {
    /// Whether this user action would change something for `detail`'s user; `limits` tell a
    /// deactivation by failures (which unlock lifts) from one by an operator.
    func applies(to detail: UserDetail, limits: AttemptLimits) -> Bool {
        let user = detail.user, hasEmail = !user.email.isEmpty
        switch name {
        case "unlock":
            // What `UserAdministration.unlock` lifts: the operator lock, the failures (and a deactivation
            // they caused), devices deactivated by failures, the smart lockout of unlinked devices.
            return user.locked || user.failedAttempts > 0
                || detail.loginBlocks.contains { $0.reason == .unlinkedDevicesLocked }
                || detail.devices.contains { $0.status == .deactivated && $0.failedAttempts >= limits.device }
        case "lock": return !user.locked
        case "deactivate": return user.status == .active
        case "reactivate": return user.status == .deactivated
        case "endSessions": return !detail.sessions.isEmpty || !detail.deviceTokens.isEmpty
        case "resendVerification", "markVerified": return hasEmail && !user.emailVerified
        case "passwordReset", "passcodeReset": return hasEmail
        default: return true
        }
    }

    /// Whether this device action would change `device`'s status (unlinking always does).
    func applies(to device: DeviceRecord) -> Bool {
        switch name {
        case "suspendDevice": device.status == .active
        case "deactivateDevice": device.status != .deactivated
        case "reactivateDevice": device.status != .active
        default: true
        }
    }
}
