import Foundation

extension SQLStore {
    public func updatePassword(userID: String, hash: String, now: Date, keep: Int) async throws {
        try await engine.transaction { db in
            try await db.execute("""
                INSERT INTO password_history (user_id, password_hash, created_at)
                SELECT id, password_hash, $2 FROM users WHERE id = $1 AND password_hash IS NOT NULL
                """, [.text(userID), now.epochSeconds])
            try await db.execute("UPDATE users SET password_hash = $2, password_updated_at = $3, updated_at = $3 WHERE id = $1",
                                 [.text(userID), .text(hash), now.epochSeconds])
            try await db.execute("""
                DELETE FROM password_history WHERE user_id = $1 AND password_hash NOT IN (
                    SELECT password_hash FROM password_history WHERE user_id = $1 ORDER BY created_at DESC, password_hash LIMIT $2)
                """, [.text(userID), .integer(Int64(max(0, keep)))])
        }
    }

    public func passwordHistory(userID: String, limit: Int) async throws -> [String] {
        try await engine.query("""
            SELECT password_hash FROM password_history WHERE user_id = $1 ORDER BY created_at DESC, password_hash LIMIT $2
            """, [.text(userID), .integer(Int64(max(0, limit)))]).compactMap { $0.text("password_hash") }
    }

    public func updatePasscode(userID: String, hash: String, now: Date) async throws {
        try await engine.execute("UPDATE users SET passcode_hash = $2, updated_at = $3 WHERE id = $1",
                                 [.text(userID), .text(hash), now.epochSeconds])
    }

    public func replaceMFAAnswers(userID: String, answers: [MFAAnswerRecord], now: Date) async throws {
        try await engine.transaction { db in
            try await db.execute("DELETE FROM mfa_answers WHERE user_id = $1", [.text(userID)])
            for answer in answers {
                try await db.execute("INSERT INTO mfa_answers (user_id, question, answer_hash) VALUES ($1, $2, $3)",
                                     [.text(userID), .text(answer.question), .text(answer.answerHash)])
            }
            try await db.execute("UPDATE users SET updated_at = $2 WHERE id = $1", [.text(userID), now.epochSeconds])
        }
    }

    public func setLocked(userID: String, locked: Bool) async throws {
        try await engine.execute("UPDATE users SET locked = $2 WHERE id = $1", [.text(userID), .integer(locked ? 1 : 0)])
    }

    public func issueToken(_ token: TokenRecord, messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await Self.insert(token, into: db)
            for message in messages { try await Self.insert(message, into: db) }
        }
    }
}
