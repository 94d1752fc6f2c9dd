import Foundation
import LatchkeyDomain

/// `OneTimeFactorStore` on both engines. A code is spent by one conditional `UPDATE … RETURNING`
/// (SQLite 3.35+ and PostgreSQL alike): of parallel calls, on this replica or another, the one
/// whose update matched the row wins.
extension SQLStore {
    public func totpFactor(userID: String) async throws -> TOTPFactorRecord? {
        try await engine.read("""
            SELECT user_id, sealed_secret, confirmed_at, last_step, created_at, last_used_at FROM totp_factors WHERE user_id = $1
            """, [.text(userID)]).first.map { row in
            TOTPFactorRecord(userID: try row.string("user_id"), sealedSecret: try row.string("sealed_secret"),
                             confirmedAt: try row.optionalDate("confirmed_at"), lastStep: try row.optionalInteger("last_step").map(Int64.init),
                             createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"))
        }
    }

    public func savePendingTOTP(userID: String, sealedSecret: String, now: Date) async throws -> Bool {
        // The upsert's WHERE leaves a confirmed app as it is, and then returns no row.
        try await !engine.query("""
            INSERT INTO totp_factors (user_id, sealed_secret, created_at) VALUES ($1, $2, $3)
            ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
                last_step = NULL, last_used_at = NULL
            WHERE totp_factors.confirmed_at IS NULL
            RETURNING user_id
            """, [.text(userID), .text(sealedSecret), now.epochSeconds]).isEmpty
    }

    public func confirmTOTP(userID: String, sealedSecret: String, step: Int64, now: Date, messages: [OutboxMessage]) async throws -> Bool {
        try await engine.transaction { db in
            guard try await !db.query("""
                UPDATE totp_factors SET confirmed_at = $3, last_step = $4, last_used_at = $3
                WHERE user_id = $1 AND sealed_secret = $2 AND confirmed_at IS NULL
                RETURNING user_id
                """, [.text(userID), .text(sealedSecret), now.epochSeconds, .integer(step)]).isEmpty else { return false }
            for message in messages { try await Self.insert(message, into: db) }
            return true
        }
    }

    public func acceptTOTPStep(userID: String, step: Int64, now: Date) async throws -> Bool {
        try await !engine.query("""
            UPDATE totp_factors SET last_step = $2, last_used_at = $3
            WHERE user_id = $1 AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < $2)
            RETURNING user_id
            """, [.text(userID), .integer(step), now.epochSeconds]).isEmpty
    }

    public func removeTOTP(userID: String, messages: [OutboxMessage]) async throws -> Bool {
        try await engine.transaction { db in
            let removed = try await db.query("DELETE FROM totp_factors WHERE user_id = $1 RETURNING confirmed_at", [.text(userID)])
            guard let row = removed.first, try row.optionalDate("confirmed_at") != nil else { return false }
            for message in messages { try await Self.insert(message, into: db) }
            return true
        }
    }

    public func replaceRecoveryCodes(userID: String, hashes: [String], now: Date, messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await db.execute("DELETE FROM recovery_codes WHERE user_id = $1", [.text(userID)])
            try await db.insert(into: "recovery_codes", columns: ["user_id", "position", "code_hash", "created_at"],
                                rows: hashes.enumerated().map { position, hash in
                                    [.text(userID), .integer(Int64(position)), .text(hash), now.epochSeconds]
                                })
            for message in messages { try await Self.insert(message, into: db) }
        }
    }

    public func unusedRecoveryCodes(userID: String) async throws -> [RecoveryCodeRecord] {
        try await engine.read("""
            SELECT position, code_hash FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL ORDER BY position
            """, [.text(userID)]).map { row in
            RecoveryCodeRecord(position: try row.integer("position"), codeHash: try row.string("code_hash"))
        }
    }

    public func useRecoveryCode(userID: String, position: Int, codeHash: String, now: Date, messages: [OutboxMessage]) async throws -> Bool {
        try await engine.transaction { db in
            // The hash as well as the position: a code checked before new codes replaced it must
            // not spend the new code at its position.
            guard try await !db.query("""
                UPDATE recovery_codes SET used_at = $3
                WHERE user_id = $1 AND position = $2 AND code_hash = $4 AND used_at IS NULL RETURNING position
                """, [.text(userID), .integer(Int64(position)), now.epochSeconds, .text(codeHash)]).isEmpty else { return false }
            for message in messages { try await Self.insert(message, into: db) }
            return true
        }
    }
}
