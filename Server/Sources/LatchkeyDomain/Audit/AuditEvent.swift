import Foundation

/// One security event of the audit trail (ASVS V16): who did what to which wallet, from where,
/// and how it ended. Never a secret: no password, PIN, answer, token, code or key, only the names
/// of what was checked or changed.
public struct AuditEvent: Sendable, Equatable, Codable {
    /// Sorts in the order the events were recorded (microseconds since 1970, then random).
    public var id: String
    public var occurredAt: Date
    public var type: AuditEventType
    public var outcome: AuditOutcome
    /// The wallet the event is about, when there is one (a login for an unknown email has none).
    public var userID: String?
    public var actor: AuditActor
    /// Why a failure failed (`wrong_password`, `unknown_user`, `locked`, …) or what a change was.
    public var reason: String?
    public var deviceID: String?
    public var clientIP: String?
    /// Further facts (the credential checked, a certificate's serial, an operator's command).
    public var details: [String: String]

    public init(id: String = AuditEvent.newID(at: Date()), occurredAt: Date, type: AuditEventType,
                outcome: AuditOutcome = .success, userID: String?, actor: AuditActor, reason: String? = nil,
                deviceID: String? = nil, clientIP: String? = nil, details: [String: String] = [:]) {
        self.id = id
        self.occurredAt = occurredAt
        self.type = type
        self.outcome = outcome
        self.userID = userID
        self.actor = actor
        self.reason = reason
        self.deviceID = deviceID
        self.clientIP = clientIP
        self.details = details
    }

    /// An id that sorts by time: 16 digits of microseconds, then 16 random hex digits. 64 bits,
    /// as an import records a batch's events at one instant: with 32 random bits, two of a
    /// million would be alike often enough to fail an import on the primary key.
    public static func newID(at date: Date) -> String {
        let micros = UInt64(max(0, date.timeIntervalSince1970 * 1_000_000))
        let digits = String(micros)
        let random = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits + "-"
            + String(repeating: "0", count: 16 - random.count) + random
    }
}

/// What happened.
public enum AuditEventType: String, Sendable, Codable, CaseIterable {
    case userRegistered = "user.registered"
    /// An unverified registration replaced by another registration of its address.
    case registrationReplaced = "registration.replaced"
    /// An unverified registration deleted when its time ran out.
    case registrationExpired = "registration.expired"
    case loginSucceeded = "login.succeeded"
    case loginFailed = "login.failed"
    /// A wrong current credential given with a session (a credential change, a device token).
    case credentialCheckFailed = "credential.check_failed"
    case mfaPrompted = "mfa.prompted"
    case mfaAnswered = "mfa.answered"
    case walletLocked = "lockout.wallet"
    case deviceLocked = "lockout.device"
    case unlinkedDevicesLocked = "lockout.unlinked"
    case walletStatusChanged = "wallet.status"
    case deviceStatusChanged = "device.status"
    case passwordChanged = "password.changed"
    case passcodeChanged = "passcode.changed"
    case mfaAnswersChanged = "mfa_answers.changed"
    /// A factor enrolled (`kind` detail: passkey, totp, recovery_codes; a passkey's `id`).
    case factorEnrolled = "factor.enrolled"
    /// A factor removed by the customer or an operator (`kind`, `id` details).
    case factorRemoved = "factor.removed"
    /// A factor used: an MFA prompt answered or a passkey login (`kind`; a recovery code's remaining count).
    case factorUsed = "factor.used"
    case emailChangeRequested = "email.change_requested"
    case emailChanged = "email.changed"
    case emailReverted = "email.reverted"
    case profileChangeRequested = "profile.change_requested"
    case profileChanged = "profile.changed"
    case deviceLinked = "device.linked"
    case deviceUnlinked = "device.unlinked"
    case deviceTokenCreated = "device_token.created"
    case certificateIssued = "certificate.issued"
    case certificateRevoked = "certificate.revoked"
    case resetRequested = "reset.requested"
    case resetCompleted = "reset.completed"
    case sessionEnded = "session.ended"
    case operatorCommand = "operator.command"
    /// An operator erased the user (admin API): its earlier events keep only the user id.
    case userErased = "user.erased"
}

/// How it ended.
public enum AuditOutcome: String, Sendable, Codable {
    case success, failure
}

/// Who acted.
public enum AuditActor: String, Sendable, Codable {
    /// A caller of the API or a page (signed in or not).
    case user
    /// An operator's command (`latchkey users …`).
    case `operator`
    /// The server itself (a rule, not a request).
    case system
}
