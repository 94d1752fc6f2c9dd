import Foundation
import LatchkeyDomain

/// The store over either SQL engine; the statements are shared.
public struct SQLStore: LatchkeyStore {
    public let engine: any SQLEngine
    package let sessions: SessionCache
    public var databaseEngine: DatabaseEngine { engine.kind }

    public init(engine: any SQLEngine) {
        self.engine = engine is AuditedEngine ? engine : AuditedEngine(inner: engine)
        self.sessions = SessionCache()
    }

    /// The store over the same engine and caches, writing `trail`'s events with its writes.
    public func recording(into trail: AuditTrail) -> SQLStore {
        let base = (engine as? AuditedEngine)?.inner ?? engine
        return SQLStore(engine: AuditedEngine(inner: base, trail: trail), sessions: sessions)
    }

    private init(engine: AuditedEngine, sessions: SessionCache) {
        self.engine = engine
        self.sessions = sessions
    }

    public func migrate() async throws -> [Int] {
        let (advisory, kind) = (engine.capabilities.advisoryLocks, engine.kind)
        // A migration may take longer than a request's database timeout.
        return try await engine.transaction(.unbounded) { db in
            // One lock for the database: replicas starting together take turns.
            if advisory { try await db.execute("SELECT pg_advisory_xact_lock(7413)") }
            try await db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            let applied = Set(try await db.query("SELECT version FROM schema_migrations", []).map { Int64(try $0.integer("version")) })
            var done: [Int] = []
            for migration in Migrations.all where !applied.contains(Int64(migration.version)) {
                for statement in migration.statements { try await db.execute(statement) }
                for statement in Migrations.engineSpecific[migration.version]?[kind] ?? [] { try await db.execute(statement) }
                try await db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                                     [.integer(Int64(migration.version)), Date().epochSeconds])
                done.append(migration.version)
            }
            return done
        }
    }

    public func appliedMigrations() async throws -> [Int] {
        try await engine.read("SELECT version FROM schema_migrations ORDER BY version", []).map { try $0.integer("version") }
    }

    public func ping() async throws {
        try await engine.execute("SELECT 1")
    }

    public func createUser(_ user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                           messages: [OutboxMessage], replacingPending: Bool) async throws {
        var replaced: [String] = []
        do {
            replaced = try await engine.transaction { db in
                let replaced = replacingPending ? try await Self.deletePendingRegistration(replacedBy: user, in: db) : []
                try await Self.insert(user, into: db)
                try await Self.insert(answers, userID: user.id, into: db)
                for token in tokens { try await Self.insert(token, into: db) }
                for message in messages { try await Self.insert(message, into: db) }
                return replaced
            }
        } catch SQLEngineError.uniqueViolation(.userEmail) {
            throw StoreError.emailInUse
        }
        for id in replaced { sessions.remove(userID: id, deviceID: nil) }
    }

    /// Deletes the unverified registration of `user`'s address, if any (never a wallet: it has no
    /// verified email), with its links, nonce, answers and sessions (foreign keys cascade). Answers
    /// the ids deleted, whose cached sessions the caller drops after the commit.
    package static func deletePendingRegistration(replacedBy user: UserRecord, in db: any SQLExecutor) async throws -> [String] {
        let replaced = try await db.query("""
            DELETE FROM users WHERE issuer = $1 AND email_normalized = $2 AND email_verified = 0
                AND pending_until IS NOT NULL RETURNING id
            """, [.text(user.issuer), .text(user.emailNormalized)]).map { try $0.string("id") }
        for id in replaced { db.audit?.record(.registrationReplaced, user: id, details: ["by": user.id], at: user.createdAt) }
        return replaced
    }

    /// Rows one `purgeExpiredRegistrations` deletes at most.
    public static let purgeBatch = 1000

    public func purgeExpiredRegistrations(now: Date) async throws -> Int {
        // Each expiry is an audit event of the transaction that deletes the registration.
        let purged = try await engine.transaction { db in
            let purged = try await db.query("""
                DELETE FROM users WHERE id IN (
                    SELECT id FROM users WHERE pending_until IS NOT NULL AND pending_until <= $1 AND email_verified = 0 LIMIT $2)
                RETURNING id
                """, [now.epochSeconds, .integer(Int64(Self.purgeBatch))]).map { try $0.string("id") }
            for id in purged { db.audit?.record(.registrationExpired, user: id, at: now) }
            return purged
        }
        for id in purged {
            sessions.remove(userID: id, deviceID: nil)
        }
        return purged.count
    }

    public func user(issuer: String, emailNormalized: String) async throws -> UserRecord? {
        try await engine.read("SELECT * FROM users WHERE issuer = $1 AND email_normalized = $2",
                               [.text(issuer), .text(emailNormalized)]).first.map { try UserRecord(row: $0) }
    }

    public func user(id: String) async throws -> UserRecord? {
        try await engine.read("SELECT * FROM users WHERE id = $1", [.text(id)]).first.map { try UserRecord(row: $0) }
    }

    public func mfaAnswers(userID: String) async throws -> [MFAAnswerRecord] {
        try await engine.read("SELECT question, answer_hash FROM mfa_answers WHERE user_id = $1 ORDER BY question",
                               [.text(userID)]).map { try MFAAnswerRecord(row: $0) }
    }

    public func pendingMFAQuestion(userID: String) async throws -> (question: String, chosenAt: Date)? {
        try await engine.read("SELECT question, chosen_at FROM mfa_pending_questions WHERE user_id = $1", [.text(userID)])
            .first.map { (try $0.string("question"), try $0.date("chosen_at")) }
    }

    public func choosePendingMFAQuestion(userID: String, proposal: String, staleBefore: Date, invalid: String?,
                                         now: Date) async throws -> String {
        try await engine.transaction { db in
            try await db.execute("""
                INSERT INTO mfa_pending_questions (user_id, question, chosen_at) VALUES ($1, $2, $3)
                ON CONFLICT (user_id) DO UPDATE SET question = excluded.question, chosen_at = excluded.chosen_at
                WHERE mfa_pending_questions.chosen_at < $4 OR mfa_pending_questions.question = $5
                """, [.text(userID), .text(proposal), now.epochSeconds, staleBefore.epochSeconds, .text(invalid ?? "")])
            guard let row = try await db.query("SELECT question FROM mfa_pending_questions WHERE user_id = $1",
                                               [.text(userID)]).first else { return proposal }
            return try row.string("question")
        }
    }

    public func clearPendingMFAQuestion(userID: String) async throws {
        try await engine.execute("DELETE FROM mfa_pending_questions WHERE user_id = $1", [.text(userID)])
    }

    public func consumeToken(digest: String, purpose: TokenPurpose, now: Date) async throws -> TokenRecord? {
        try await engine.query("""
            UPDATE tokens SET used_at = $1
            WHERE digest = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $1
            RETURNING *
            """, [now.epochSeconds, .text(digest), .text(purpose.rawValue)]).first.map { try TokenRecord(row: $0) }
    }

    public func enqueue(_ messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            for message in messages { try await Self.insert(message, into: db) }
        }
    }

    public func claimMessages(now: Date, lease: TimeInterval, limit: Int) async throws -> [OutboxMessage] {
        let lock = engine.capabilities.skipLocked ? " FOR UPDATE SKIP LOCKED" : ""
        return try await engine.query("""
            UPDATE outbox SET locked_until = $1 WHERE id IN (
                SELECT id FROM outbox
                WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $2
                  AND (locked_until IS NULL OR locked_until <= $2)
                ORDER BY created_at, id LIMIT $3\(lock))
            RETURNING *
            """, [now.addingTimeInterval(lease).epochSeconds, now.epochSeconds, .integer(Int64(limit))])
            .map { try OutboxMessage(row: $0) }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func markDelivered(id: String, at date: Date) async throws {
        try await engine.execute("""
            UPDATE outbox SET delivered_at = $1, sealed_payload = NULL, locked_until = NULL,
                attempts = attempts + 1, last_error = NULL WHERE id = $2
            """, [date.epochSeconds, .text(id)])
    }

    public func markFailed(id: String, attempts: Int, nextAttemptAt: Date, error: String, giveUp: Bool, now: Date) async throws {
        try await engine.execute("""
            UPDATE outbox SET attempts = $1, next_attempt_at = $2, last_error = $3, locked_until = NULL, failed_at = $4
            WHERE id = $5
            """, [.integer(Int64(attempts)), nextAttemptAt.epochSeconds, .text(String(error.prefix(500))),
                  giveUp ? now.epochSeconds : .null, .text(id)])
    }

    public func outboxMessage(id: String) async throws -> OutboxMessage? {
        try await engine.read("SELECT * FROM outbox WHERE id = $1", [.text(id)]).first.map { try OutboxMessage(row: $0) }
    }

    public func outboxMessages() async throws -> [OutboxMessage] {
        try await engine.read("SELECT * FROM outbox ORDER BY created_at, id", []).map { try OutboxMessage(row: $0) }
    }

    public func run() async {
        await engine.run()
    }

    public func close() async throws {
        try await engine.close()
    }

    package static func insert(_ user: UserRecord, into db: any SQLExecutor) async throws {
        try await db.insert(into: "users", columns: userColumns, rows: [row(user)])
    }

    package static let userColumns = ["id", "issuer", "email", "email_normalized", "first_name", "last_name", "phone", "external_id",
                              "password_hash", "passcode_hash", "email_verified", "status", "profile_json", "created_at",
                              "updated_at", "app_instance_verified", "password_updated_at", "phone_normalized", "pending_until",
                                      "languages"]

    package static func row(_ user: UserRecord) -> [SQLValue] {
        [.text(user.id), .text(user.issuer), .text(user.email), .text(user.emailNormalized), user.firstName.sql, user.lastName.sql,
         user.phone.sql, user.externalId.sql, user.passwordHash.sql, user.passcodeHash.sql, .integer(user.emailVerified ? 1 : 0),
         .text(user.status.rawValue), .text(user.profileJSON), user.createdAt.epochSeconds, user.updatedAt.epochSeconds,
         .integer(user.appInstanceVerified ? 1 : 0), user.passwordUpdatedAt?.epochSeconds ?? .null, user.phoneNormalized.sql,
         user.pendingUntil?.epochSeconds ?? .null, user.languages.sql]
    }

    package static func insert(_ answers: [MFAAnswerRecord], userID: String, into db: any SQLExecutor) async throws {
        for answer in answers {
            try await db.execute("INSERT INTO mfa_answers (user_id, question, answer_hash) VALUES ($1, $2, $3)",
                                 [.text(userID), .text(answer.question), .text(answer.answerHash)])
        }
    }

    package static func insert(_ token: TokenRecord, into db: any SQLExecutor) async throws {
        try await db.execute("""
            INSERT INTO tokens (digest, purpose, user_id, device_id, created_at, expires_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [.text(token.digest), .text(token.purpose.rawValue), .text(token.userID), token.deviceID.sql,
                  token.createdAt.epochSeconds, token.expiresAt.epochSeconds, token.data.sql])
    }

    package static func insert(_ message: OutboxMessage, into db: any SQLExecutor) async throws {
        try await db.execute("""
            INSERT INTO outbox (id, channel, recipient, template, subject, sealed_payload, created_at, attempts, next_attempt_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """, [.text(message.id), .text(message.channel), .text(message.recipient), .text(message.template),
                  .text(message.subject), message.sealedPayload.sql, message.createdAt.epochSeconds,
                  .integer(Int64(message.attempts)), message.nextAttemptAt.epochSeconds])
    }
}
