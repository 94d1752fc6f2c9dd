import Foundation

/// A wallet's authenticator app (`totp_factors`: its sealed secret and the last step accepted) and
/// recovery codes (`recovery_codes`: their hashes and when each was used).
///
/// Every spending call is one conditional statement, so of parallel calls (on any replica) for
/// one code exactly one succeeds.
public protocol OneTimeFactorStore: AuditingStore {
    /// The wallet's authenticator app, pending or confirmed.
    func totpFactor(userID: String) async throws -> TOTPFactorRecord?
    /// Stores a pending authenticator app, replacing a pending one (its secret and any step it
    /// accepted). Answers false, storing nothing, when the wallet's app is confirmed.
    func savePendingTOTP(userID: String, sealedSecret: String, now: Date) async throws -> Bool
    /// Confirms the pending app whose secret is `sealedSecret` with its first code's `step`
    /// (accepted: it cannot answer again), and queues `messages`, in one transaction. Answers
    /// false when that app is no longer pending (confirmed or replaced meanwhile).
    func confirmTOTP(userID: String, sealedSecret: String, step: Int64, now: Date, messages: [OutboxMessage]) async throws -> Bool
    /// Accepts a code of the confirmed app: records `step` as the last accepted one when it is
    /// later than the last; false for a step accepted already (a replay) or an earlier one.
    func acceptTOTPStep(userID: String, step: Int64, now: Date) async throws -> Bool
    /// Removes the authenticator app (pending or confirmed) and queues `messages` in one
    /// transaction; answers whether there was a confirmed one (no messages are queued otherwise).
    func removeTOTP(userID: String, messages: [OutboxMessage]) async throws -> Bool

    /// Replaces every recovery code of the wallet with `hashes` (position = index) and queues
    /// `messages`, in one transaction.
    func replaceRecoveryCodes(userID: String, hashes: [String], now: Date, messages: [OutboxMessage]) async throws
    /// The wallet's recovery codes not used yet.
    func unusedRecoveryCodes(userID: String) async throws -> [RecoveryCodeRecord]
    /// Spends the recovery code at `position` whose hash is `codeHash` (the one that was
    /// checked) and queues `messages`, in one transaction; false (nothing queued) when it was
    /// used already or new codes replaced it meanwhile.
    func useRecoveryCode(userID: String, position: Int, codeHash: String, now: Date, messages: [OutboxMessage]) async throws -> Bool
}

/// A wallet's authenticator app as stored: its secret sealed with the pepper's field cipher.
public struct TOTPFactorRecord: Sendable, Equatable {
    public var userID: String
    public var sealedSecret: String
    /// When its first code confirmed it; nil while it is pending.
    public var confirmedAt: Date?
    /// The last time step accepted (each is accepted once).
    public var lastStep: Int64?
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(userID: String, sealedSecret: String, confirmedAt: Date?, lastStep: Int64?, createdAt: Date, lastUsedAt: Date?) {
        self.userID = userID
        self.sealedSecret = sealedSecret
        self.confirmedAt = confirmedAt
        self.lastStep = lastStep
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// One unused recovery code as stored: its position (which its code carries) and its hash.
public struct RecoveryCodeRecord: Sendable, Equatable {
    public var position: Int
    public var codeHash: String

    public init(position: Int, codeHash: String) {
        self.position = position
        self.codeHash = codeHash
    }
}
