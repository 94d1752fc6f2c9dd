import LatchkeyCore
import Foundation

/// Users and their single-use tokens.
public protocol UserStore: AuditingStore {
    /// Stores a new user with its MFA answers, tokens and outgoing messages in one transaction;
    /// with `replacingPending`, first deletes an unverified registration of the same address
    /// (`UserRecord.pendingUntil`) with everything it holds. Throws `StoreError.emailInUse` when
    /// the issuer already has the address otherwise.
    func createUser(_ user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                    messages: [OutboxMessage], replacingPending: Bool) async throws
    /// Deletes up to `SQLStore.purgeBatch` unverified registrations whose time ran out; answers how many.
    func purgeExpiredRegistrations(now: Date) async throws -> Int
    /// The user of `issuer` with this (normalized) email address.
    func user(issuer: String, emailNormalized: String) async throws -> UserRecord?
    /// The user of `issuer` who signed up with this phone number.
    func user(issuer: String, phoneNormalized: String) async throws -> UserRecord?
    /// The user with this id.
    func user(id: String) async throws -> UserRecord?
    /// Users of an issuer, newest first.
    func users(issuer: String, limit: Int, offset: Int) async throws -> [UserRecord]
    /// The hashes of a user's MFA answers.
    func mfaAnswers(userID: String) async throws -> [MFAAnswerRecord]
    /// The MFA question the user is being asked, and when it was chosen.
    func pendingMFAQuestion(userID: String) async throws -> (question: String, chosenAt: Date)?
    /// Makes `proposal` the user's pending question unless a live one is there, atomically (two
    /// prompts at once agree): it replaces one chosen before `staleBefore` or equal to `invalid`.
    /// Answers the pending question after the change.
    func choosePendingMFAQuestion(userID: String, proposal: String, staleBefore: Date, invalid: String?,
                                  now: Date) async throws -> String
    /// Forgets the pending question (it was answered rightly).
    func clearPendingMFAQuestion(userID: String) async throws
    /// Applies a status change the domain decided (`UserStatus.change(to:)`): the status, whether
    /// the failure count is cleared, and whether the user's sessions end, in one transaction.
    func setUserStatus(userID: String, change: UserStatusChange, now: Date) async throws
    /// Marks the app instance verified (nonce login or email verification).
    func markAppInstanceVerified(userID: String) async throws
    /// Marks the user's email address verified.
    func markEmailVerified(userID: String) async throws

    /// Stores a single-use token with optional data (e.g. the question of an MFA challenge).
    func createToken(_ token: TokenRecord) async throws
    /// An unused, unexpired token, without consuming it.
    func token(digest: String, purpose: TokenPurpose, now: Date) async throws -> TokenRecord?
    /// Marks an unused, unexpired token of this purpose used and answers it; nil when it is
    /// unknown, used or expired. Atomic: of parallel calls for one token, one succeeds.
    func consumeToken(digest: String, purpose: TokenPurpose, now: Date) async throws -> TokenRecord?
}

/// The lockout counters, kept in the database so they hold across replicas.
public protocol AttemptStore: AuditingStore {
    /// Counts an attempt against the wallet (and the device, when it is linked) before the
    /// credential is checked, atomically: once `limits` is reached no further attempt is reserved,
    /// however many run in parallel.
    func reserveAttempt(userID: String, deviceID: String?, limits: AttemptLimits) async throws -> AttemptReservation
    /// After a wrong credential: deactivates the wallet or device whose count reached its limit.
    func recordFailure(userID: String, deviceID: String?, limits: AttemptLimits, now: Date) async throws -> FailureOutcome
    /// After a right credential: gives the reserved attempt back, leaving earlier failures counted
    /// (a right password that only leads to an MFA prompt must not wipe wrong answers).
    func releaseAttempt(userID: String, deviceID: String?) async throws
    /// After a completed login: resets the consecutive counts and, when given, records the login
    /// time, what the device runs (`software`) and the customer's `languages` (a header value);
    /// a nil value keeps the one recorded.
    func recordSuccess(userID: String, deviceID: String?, loginAt: Date?, software: DeviceSoftware, languages: String?) async throws

    /// Counts an attempt from a device not linked to the wallet before the credential is checked,
    /// atomically; false while unlinked devices are locked out or `limit` attempts are counted.
    func reserveUnlinkedAttempt(userID: String, limit: Int, now: Date) async throws -> Bool
    /// After a wrong credential from an unlinked device: at `lockout.unlinkedThreshold` failures
    /// locks unlinked devices out for the next temporary lockout's length (doubling when the
    /// previous one ended within `maxTemporarySeconds`); answers the lockout's end when this
    /// failure started one.
    func recordUnlinkedFailure(userID: String, lockout: LockoutSettings, now: Date) async throws -> Date?
    /// After a right credential from an unlinked device: gives the reserved attempt back.
    func releaseUnlinkedAttempt(userID: String) async throws
    /// Forgets the unlinked failures and lockouts (the password and an MFA answer were proven).
    func clearUnlinkedAttempts(userID: String) async throws
}

/// The devices linked to wallets.
public protocol DeviceStore: AuditingStore {
    /// The device link of a user, if any.
    func device(userID: String, deviceID: String) async throws -> DeviceRecord?
    /// The devices of a user.
    func devices(userID: String) async throws -> [DeviceRecord]
    /// The user most recently linked to a device (PIN login identifies the user by device).
    func deviceOwner(deviceID: String) async throws -> DeviceRecord?
    /// Links a device to a user (idempotent), with the app's label for it.
    /// Throws `StoreError.deviceKeyInUse` when the device is a key another wallet has linked.
    func linkDevice(userID: String, deviceID: String, deviceType: String?, label: String?, now: Date) async throws
    /// Unlinks a device in one transaction: the link goes, the device's sessions and device tokens
    /// are revoked and its certificates too. Answers whether the device was linked.
    func unlinkDevice(userID: String, deviceID: String, now: Date, messages: [OutboxMessage]) async throws -> Bool
    /// Applies a device status change the domain decided (`DeviceStatus.change(to:)`).
    func setDeviceStatus(userID: String, deviceID: String, change: DeviceStatusChange, now: Date) async throws
}

/// Sessions and long-lived device tokens.
public protocol SessionStore: AuditingStore {
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
    func createDeviceToken(_ token: DeviceTokenRecord, messages: [OutboxMessage]) async throws
    /// The device token with this digest, live or not.
    func deviceToken(digest: String) async throws -> DeviceTokenRecord?
    /// Revokes a device token; answers whether it was live at `now`.
    @discardableResult func revokeDeviceToken(digest: String, now: Date) async throws -> Bool
    /// Revokes every device token of a user.
    func revokeDeviceTokens(userID: String, now: Date) async throws
}

/// The outbox: messages written in the transaction of the change they report, delivered by the
/// courier at least once.
public protocol OutboxStore: AuditingStore {
    /// Adds messages to the outbox.
    func enqueue(_ messages: [OutboxMessage]) async throws
    /// Leases up to `limit` due, undelivered messages for `lease` seconds, oldest first.
    func claimMessages(now: Date, lease: TimeInterval, limit: Int) async throws -> [OutboxMessage]
    /// Records a delivery and drops the sealed payload.
    func markDelivered(id: String, at: Date) async throws
    /// Records a failed attempt; `giveUp` stops further attempts.
    func markFailed(id: String, attempts: Int, nextAttemptAt: Date, error: String, giveUp: Bool, now: Date) async throws
    /// One outbox message.
    func outboxMessage(id: String) async throws -> OutboxMessage?
    /// Every outbox message, oldest first (operators and tests).
    func outboxMessages() async throws -> [OutboxMessage]
}

extension DeviceStore {
    /// Links a device without a label (operators, tests, the benchmark).
    public func linkDevice(userID: String, deviceID: String, deviceType: String?, now: Date) async throws {
        try await linkDevice(userID: userID, deviceID: deviceID, deviceType: deviceType, label: nil, now: now)
    }
}

/// The DPoP proofs of the calls that check credentials or open sessions, so a proof is accepted
/// once across replicas.
public protocol ProofStore: AuditingStore {
    /// Records a proof (the digest of its key thumbprint and `jti`) until `expiresAt`; false when it
    /// was recorded before and has not expired (a replay). Also drops expired records now and then.
    func recordProof(digest: String, expiresAt: Date, now: Date) async throws -> Bool
}

extension Date {
    /// Whole seconds from `now` until this date, at least one: a `Retry-After` value.
    package func retryAfter(from now: Date) -> Int { max(1, Int(timeIntervalSince(now).rounded(.up))) }
}

/// Fixed-window counters in the database, so every replica enforces one limit: reset answers per
/// account, emails per address, codes and wrong codes per number, SMS per issuer.
public protocol WindowCounterStore: AuditingStore {
    /// Counts one event of `key` against `limit` per `window`, atomically (one row, so parallel
    /// requests and replicas share it): nil when counted, else when the window opens again.
    func hit(_ key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Date?
    /// When `key`'s window opens again, or nil while it has room.
    func blockedUntil(_ key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Date?
    /// Gives one counted event back (a right answer or code).
    func release(_ key: String) async throws
    /// Adds `count` events to `key`'s window whatever the limit (the shared rate limits, which
    /// took them already or decide by the count): answers the count and the window's start.
    func add(_ key: String, count: Int, window: TimeInterval, now: Date) async throws -> (count: Int, windowStart: Date)
}

extension DeviceStore {
    /// Unlinks a device without a message.
    public func unlinkDevice(userID: String, deviceID: String, now: Date) async throws -> Bool {
        try await unlinkDevice(userID: userID, deviceID: deviceID, now: now, messages: [])
    }
}

extension SessionStore {
    /// Stores a device token without a message.
    public func createDeviceToken(_ token: DeviceTokenRecord) async throws {
        try await createDeviceToken(token, messages: [])
    }
}


/// Fingerprints of the secrets the servers of one database share (`ClusterSecrets`).
public protocol SecretFingerprintStore: AuditingStore {
    /// Records the fingerprints the database has none of yet (the first server's win) and answers
    /// all that are recorded.
    func recordSecretFingerprints(_ fingerprints: [String: String], now: Date) async throws -> [String: String]
    /// Replaces a fingerprint if it still is `old` (a rotation); false when it was not.
    func rotateSecretFingerprint(name: String, from old: String, to new: String, now: Date) async throws -> Bool
}

/// The audit trail (`AuditTrail`): security events, appended, read per wallet or in order, and
/// purged past the retention.
public protocol AuditStore: AuditingStore {
    /// Writes events on their own (those no change's transaction carried).
    func appendAuditEvents(_ events: [AuditEvent]) async throws
    /// The latest `limit` events of a wallet, oldest first.
    func auditEvents(userID: String, limit: Int) async throws -> [AuditEvent]
    /// Events in recording order after `id` (nil: from the first), since `since`, at most `limit`.
    func auditEvents(after id: String?, since: Date?, limit: Int) async throws -> [AuditEvent]
    /// Deletes events older than `date`, in one transaction: one by one at most `limit` (so a
    /// purge never holds the database's writer long), and on PostgreSQL whole partitions that
    /// end before `date`, their rows counted; a partition that holds `date` keeps its older
    /// events until it is wholly past. Answers how many went: call again while that is at least
    /// `limit`.
    func purgeAuditEvents(before date: Date, limit: Int) async throws -> Int
    /// Makes the trail's partitions for the weeks from `from` through `through` that have none
    /// (PostgreSQL; idempotent, safe from several replicas at once); answers how many it made,
    /// always 0 on SQLite, whose trail is one table. Throws when the trail stayed locked by
    /// other statements for two seconds.
    func prepareAuditPartitions(from: Date, through: Date) async throws -> Int
}

extension UserStore {
    /// Stores a new user that replaces nothing (`createUser(_:answers:tokens:messages:replacingPending:)`).
    public func createUser(_ user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                           messages: [OutboxMessage]) async throws {
        try await createUser(user, answers: answers, tokens: tokens, messages: messages, replacingPending: false)
    }
}

/// The apps' login statistics (`collectStatistics`), added up per device, method and day.
public protocol StatisticsStore: AuditingStore {
    /// Adds `statistics` to the device's counts of `day` (days since 1970, UTC), atomically: two
    /// replicas adding to the same day add up; each sum stops at `LoginStatistics.sumCap`. A
    /// batch whose id was taken before adds nothing (answers false).
    func addLoginStatistics(userID: String, deviceID: String, day: Int, batchID: String,
                            _ statistics: [LoginStatistics]) async throws -> Bool
    /// A wallet's counts (one device's when given) from `sinceDay` on, newest day first, then by
    /// device and method.
    func loginStatistics(userID: String, deviceID: String?, sinceDay: Int) async throws -> [DailyLoginStatistics]
    /// Deletes the counts of days before `day`; answers how many rows went (the most of one table).
    func purgeLoginStatistics(beforeDay day: Int) async throws -> Int
    /// Deletes the ids of batches taken before `day` (a batch is sent again within hours, not
    /// days); answers how many went.
    func purgeLoginStatisticsBatches(beforeDay day: Int) async throws -> Int
}
