import Foundation

/// An operator of the console (`latchkey operators create EMAIL --role …`): an account of its
/// own, apart from the wallets, with a password and a TOTP authenticator set up through a
/// one-time link. Secrets are a password hash and a sealed TOTP secret; nothing in plain form.
public struct OperatorAccount: Sendable, Equatable {
    public var id: String
    public var email: String
    public var role: OperatorRole
    /// Nil until the setup link is used.
    public var passwordHash: String?
    /// The TOTP secret, sealed with the pepper's field cipher; nil until set up.
    public var totpSecretSealed: String?
    /// The last TOTP time step accepted: a code of it or earlier is refused (RFC 6238 §5.2).
    public var totpLastStep: Int64?
    /// The digest of the setup link's token, and when it expires; nil once used.
    public var setupDigest: String?
    public var setupExpiresAt: Date?
    public var createdAt: Date
    public var disabledAt: Date?

    public init(id: String, email: String, role: OperatorRole, passwordHash: String? = nil, totpSecretSealed: String? = nil,
                totpLastStep: Int64? = nil, setupDigest: String? = nil,
                setupExpiresAt: Date? = nil, createdAt: Date, disabledAt: Date? = nil) {
        self.id = id
        self.email = email
        self.role = role
        self.passwordHash = passwordHash
        self.totpSecretSealed = totpSecretSealed
        self.totpLastStep = totpLastStep
        self.setupDigest = setupDigest
        self.setupExpiresAt = setupExpiresAt
        self.createdAt = createdAt
        self.disabledAt = disabledAt
    }

    /// Whether it has a password and an authenticator.
    public var isSetUp: Bool { passwordHash != nil && totpSecretSealed != nil }
}

/// A console sign-in: a cookie whose digest is kept, ending after `idle` without use or at
/// `expiresAt` whatever happens.
public struct ConsoleSession: Sendable, Equatable {
    public var digest: String
    public var operatorID: String
    public var createdAt: Date
    public var lastSeenAt: Date
    public var expiresAt: Date

    public init(digest: String, operatorID: String, createdAt: Date, lastSeenAt: Date, expiresAt: Date) {
        self.digest = digest
        self.operatorID = operatorID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
    }
}

/// When failed console sign-ins lock a client address out of an operator's account: `threshold`
/// failures from that address, each within `window` of the one before, lock it for `lockFor`.
/// A lock's end, or `window` without a failure, starts the count again.
public struct OperatorLockoutPolicy: Sendable, Equatable {
    public var threshold: Int
    public var window: TimeInterval
    public var lockFor: TimeInterval
    public init(threshold: Int, window: TimeInterval, lockFor: TimeInterval) {
        self.threshold = threshold
        self.window = window
        self.lockFor = lockFor
    }
}

/// One hour or day of the dashboard: counts by series.
public struct DashboardBucket: Sendable, Equatable {
    public var start: Date
    public var counts: [String: Int]
    public init(start: Date, counts: [String: Int]) {
        self.start = start
        self.counts = counts
    }
}

/// The console's operators and their sign-ins. Counters and single use are enforced by the
/// database (one statement each), so they hold across replicas.
public protocol ConsoleStore: AuditingStore {
    /// Adds an operator. Throws `StoreError.duplicate` when the address has one.
    func createOperatorAccount(_ account: OperatorAccount) async throws
    func operatorAccount(email: String) async throws -> OperatorAccount?
    func operatorAccount(id: String) async throws -> OperatorAccount?
    /// Every operator, by address.
    func operatorAccounts() async throws -> [OperatorAccount]
    /// Uses the setup link once: sets the password hash and the sealed secret when the link's
    /// digest matches and it has not expired, and ends the operator's sessions. Answers whether it did.
    func completeOperatorSetup(id: String, setupDigest: String, passwordHash: String, totpSecretSealed: String, now: Date) async throws -> Bool
    /// Starts the setup again: a new link; the password, the authenticator and the sessions end.
    func resetOperatorSetup(id: String, setupDigest: String, expiresAt: Date) async throws
    /// Accepts a TOTP time step once: answers false when that step or a later one was accepted before.
    func acceptOperatorTOTPStep(id: String, step: Int64) async throws -> Bool
    /// The end of the lock on the operator's sign-ins from `clientIP`, when one runs at `now`; nil otherwise.
    func operatorLockout(id: String, clientIP: String, now: Date) async throws -> Date?
    /// Counts a failed sign-in to the operator from `clientIP` as `policy` says, in one statement
    /// (replicas' parallel failures all count); a failure while that address's lock runs changes
    /// nothing. Answers the lock's end when the address is locked out.
    func recordOperatorFailure(id: String, clientIP: String, policy: OperatorLockoutPolicy, now: Date) async throws -> Date?
    /// Forgets the failures from `clientIP` after a sign-in from there (other addresses' stay).
    func clearOperatorFailures(id: String, clientIP: String) async throws
    func createConsoleSession(_ session: ConsoleSession) async throws
    /// The live session (not expired, used within `idle`), its last use moved to `now` when a
    /// minute or more has passed; nil otherwise.
    func consoleSession(digest: String, now: Date, idle: TimeInterval) async throws -> ConsoleSession?
    func deleteConsoleSession(digest: String) async throws
    /// The dashboard's counts from the audit trail and the courier, by `bucket` seconds (hours or
    /// days) from `since` (the start of an hour) to `now`: logins by outcome, lockouts,
    /// registrations, phone sign-ups, SMS sent, requests shed. An hour's counts are kept once it
    /// is over (an hour after its end) and read back from then on.
    func dashboardCounts(since: Date, bucket: Int, now: Date) async throws -> [DashboardBucket]
}
