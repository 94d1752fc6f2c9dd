import Foundation
import LatchkeyDomain

extension SQLStore {
    public func createOperatorAccount(_ account: OperatorAccount) async throws {
        do {
            try await engine.execute("""
                INSERT INTO operator_accounts (id, email, role, setup_digest, setup_expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)
                """, [.text(account.id), .text(account.email), .text(account.role.rawValue), account.setupDigest.sql,
                      account.setupExpiresAt?.epochSeconds ?? .null, account.createdAt.epochSeconds])
        } catch SQLEngineError.uniqueViolation {
            throw OperatorError.duplicateOperator(account.email)
        }
    }

    public func operatorAccount(email: String) async throws -> OperatorAccount? {
        try await engine.read("SELECT * FROM operator_accounts WHERE email = $1", [.text(email)]).first.map(OperatorAccount.init(row:))
    }

    public func operatorAccount(id: String) async throws -> OperatorAccount? {
        try await engine.read("SELECT * FROM operator_accounts WHERE id = $1", [.text(id)]).first.map(OperatorAccount.init(row:))
    }

    public func operatorAccounts() async throws -> [OperatorAccount] {
        try await engine.read("SELECT * FROM operator_accounts ORDER BY email", []).map(OperatorAccount.init(row:))
    }

    public func completeOperatorSetup(id: String, setupDigest: String, passwordHash: String, totpSecretSealed: String,
                                      now: Date) async throws -> Bool {
        try await engine.transaction { db in
            let done = try await !db.query("""
                UPDATE operator_accounts SET password_hash = $3, totp_secret = $4, totp_last_step = NULL, failed_attempts = 0,
                    locked_until = NULL, setup_digest = NULL, setup_expires_at = NULL
                WHERE id = $1 AND setup_digest = $2 AND setup_expires_at > $5 RETURNING id
                """, [.text(id), .text(setupDigest), .text(passwordHash), .text(totpSecretSealed), now.epochSeconds]).isEmpty
            if done {
                try await db.execute("DELETE FROM console_sessions WHERE operator_id = $1", [.text(id)])
                try await Self.clearOperatorAttempts(id: id, in: db)
            }
            return done
        }
    }

    public func resetOperatorSetup(id: String, setupDigest: String, expiresAt: Date) async throws {
        try await engine.transaction { db in
            try await db.execute("""
                UPDATE operator_accounts SET password_hash = NULL, totp_secret = NULL, totp_last_step = NULL, failed_attempts = 0,
                    locked_until = NULL, setup_digest = $2, setup_expires_at = $3 WHERE id = $1
                """, [.text(id), .text(setupDigest), expiresAt.epochSeconds])
            try await db.execute("DELETE FROM console_sessions WHERE operator_id = $1", [.text(id)])
            try await Self.clearOperatorAttempts(id: id, in: db)
        }
    }

    public func acceptOperatorTOTPStep(id: String, step: Int64) async throws -> Bool {
        try await !engine.query("""
            UPDATE operator_accounts SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id
            """, [.text(id), .integer(step)]).isEmpty
    }

    public func createConsoleSession(_ session: ConsoleSession) async throws {
        try await engine.execute("""
            INSERT INTO console_sessions (digest, operator_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5)
            """, [.text(session.digest), .text(session.operatorID), session.createdAt.epochSeconds, session.lastSeenAt.epochSeconds,
                  session.expiresAt.epochSeconds])
    }

    public func consoleSession(digest: String, now: Date, idle: TimeInterval) async throws -> ConsoleSession? {
        guard var session = try await engine.read("""
            SELECT * FROM console_sessions WHERE digest = $1 AND expires_at > $2 AND last_seen_at > $3
            """, [.text(digest), now.epochSeconds, now.addingTimeInterval(-idle).epochSeconds]).first.map(ConsoleSession.init(row:))
        else { return nil }
        if now.timeIntervalSince(session.lastSeenAt) >= 60 {
            try await engine.execute("UPDATE console_sessions SET last_seen_at = $2 WHERE digest = $1", [.text(digest), now.epochSeconds])
            session.lastSeenAt = now
        }
        return session
    }

    public func deleteConsoleSession(digest: String) async throws {
        try await engine.execute("DELETE FROM console_sessions WHERE digest = $1", [.text(digest)])
    }
}

extension OperatorAccount {
    package init(row: SQLRow) throws {
        self.init(id: try row.string("id"), email: try row.string("email"), role: try row.value("role"),
                  passwordHash: try row.optionalString("password_hash"), totpSecretSealed: try row.optionalString("totp_secret"),
                  totpLastStep: try row.optionalInteger("totp_last_step").map(Int64.init), setupDigest: try row.optionalString("setup_digest"),
                  setupExpiresAt: try row.optionalDate("setup_expires_at"), createdAt: try row.date("created_at"),
                  disabledAt: try row.optionalDate("disabled_at"))
    }
}

extension ConsoleSession {
    package init(row: SQLRow) throws {
        self.init(digest: try row.string("digest"), operatorID: try row.string("operator_id"), createdAt: try row.date("created_at"),
                  lastSeenAt: try row.date("last_seen_at"), expiresAt: try row.date("expires_at"))
    }
}
