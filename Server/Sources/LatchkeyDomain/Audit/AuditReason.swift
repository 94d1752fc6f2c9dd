import Foundation

/// Why a failure failed, or what a change was, as the audit trail records it (`AuditEvent.reason`):
/// one of the names below, never text built at the call site.
public struct AuditReason: Sendable, Equatable {
    /// The name stored in the trail.
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    // Refused logins and credential checks.
    public static let rateLimited = AuditReason("rate_limited")
    public static let attemptsInFlight = AuditReason("attempts_in_flight")
    public static let walletDeactivated = AuditReason("wallet_deactivated")
    public static let deviceDeactivated = AuditReason("device_deactivated")
    public static let deviceSuspended = AuditReason("device_suspended")
    public static let unlinkedDevicesLocked = AuditReason("unlinked_devices_locked")
    public static let unknownUser = AuditReason("unknown_user")
    public static let unknownDevice = AuditReason("unknown_device")
    public static let invalidChallenge = AuditReason("invalid_challenge")
    public static let noLinkedWallet = AuditReason("no_linked_wallet")
    public static let wrongPassword = AuditReason("wrong_password")
    public static let wrongPIN = AuditReason("wrong_pin")
    public static let wrongMFAAnswer = AuditReason("wrong_mfa_answer")
    public static let wrongTOTPCode = AuditReason("wrong_totp_code")
    public static let replayedTOTPCode = AuditReason("replayed_totp_code")
    public static let wrongRecoveryCode = AuditReason("wrong_recovery_code")
    /// A passkey assertion or registration that did not verify (the detail names the check).
    public static let passkeyRejected = AuditReason("passkey_rejected")
    public static let unknownPasskey = AuditReason("unknown_passkey")
    /// An operator removed a factor of the wallet.
    public static let removedByOperator = AuditReason("removed_by_operator")
    // Changes.
    public static let logout = AuditReason("logout")
    public static let passwordExpired = AuditReason("expired")
    public static let passwordChanged = AuditReason("changed")
    public static let signupClaimVerified = AuditReason("sign_up_claim_verified")
    // An operator's call that only read (`operator.command`): a user's latest events leave them out.
    public static let read = AuditReason("read")

    /// A wallet's new status (`walletStatusChanged`).
    public static func status(_ status: UserStatus) -> AuditReason { AuditReason(status.rawValue) }
    /// A device's new status (`deviceStatusChanged`).
    public static func status(_ status: DeviceStatus) -> AuditReason { AuditReason(status.rawValue) }
}

/// What a credential check checked, as the audit trail names it (the event's `factor` detail).
public enum CredentialFactor: String, Sendable, Equatable {
    case password
    case pin
    case mfaAnswer = "mfa_answer"
    case totp
    case recoveryCode = "recovery_code"
    case passkey

    /// The reason a wrong value of this factor is refused with.
    public var wrong: AuditReason {
        switch self {
        case .password: .wrongPassword
        case .pin: .wrongPIN
        case .mfaAnswer: .wrongMFAAnswer
        case .totp: .wrongTOTPCode
        case .recoveryCode: .wrongRecoveryCode
        case .passkey: .passkeyRejected
        }
    }
}
