import Foundation
import LatchkeyDomain

/// `FactorInventoryStore` on both engines: one read per factor table.
extension SQLStore {
    public func factorInventory(userID: String) async throws -> FactorInventory {
        try await Self.factorInventory(userID: userID, read: engine.read)
    }

    public func removeFactor(userID: String, id: String, messages: [OutboxMessage],
                             check: @escaping @Sendable (FactorInventory) throws -> Void) async throws -> Bool {
        let user = SQLValue.text(userID)
        let lockWallet = engine.kind == .postgres
        return try await engine.transaction { db in
            // The removals of one wallet take turns. SQLite's write transactions (BEGIN IMMEDIATE)
            // exclude each other already; on PostgreSQL the wallet's row is locked until the end,
            // so a concurrent removal reads the inventory only once this one has committed.
            if lockWallet { try await db.execute("SELECT id FROM users WHERE id = $1 FOR UPDATE", [user]) }
            try check(try await Self.factorInventory(userID: userID, read: db.query))
            let removed: [SQLRow]
            switch id {
            case EnrolledFactor.questionsID:
                return false
            case EnrolledFactor.totpID:
                removed = try await db.query("DELETE FROM totp_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL RETURNING user_id",
                                             [user])
            case EnrolledFactor.recoveryCodesID:
                removed = try await db.query("DELETE FROM recovery_codes WHERE user_id = $1 RETURNING position", [user])
            default:
                removed = try await db.query("DELETE FROM passkeys WHERE id = $1 AND user_id = $2 RETURNING id", [.text(id), user])
            }
            guard !removed.isEmpty else { return false }
            for message in messages { try await Self.insert(message, into: db) }
            return true
        }
    }

    /// The wallet's factors, read with `read` (the engine's readers, or an open transaction).
    private static func factorInventory(userID: String, read: (String, [SQLValue]) async throws -> [SQLRow])
        async throws -> FactorInventory {
        let id = SQLValue.text(userID)
        var factors: [EnrolledFactor] = []
        // The questions are answered at registration (or import): they date from the wallet.
        let questions = try await read("""
            SELECT u.created_at FROM users u WHERE u.id = $1 AND EXISTS (SELECT 1 FROM mfa_answers a WHERE a.user_id = u.id)
            """, [id])
        if let row = questions.first {
            factors.append(EnrolledFactor(id: EnrolledFactor.questionsID, kind: .question, createdAt: try row.date("created_at")))
        }
        for row in try await read("""
            SELECT id, name, created_at, last_used_at, backup_state FROM passkeys WHERE user_id = $1 ORDER BY created_at, id
            """, [id]) {
            factors.append(EnrolledFactor(id: try row.string("id"), kind: .passkey, name: try row.string("name"),
                                          createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"),
                                          backedUp: try row.integer("backup_state") != 0))
        }
        // A pending (unconfirmed) authenticator app is not a factor yet.
        if let row = try await read("""
            SELECT confirmed_at, last_used_at FROM totp_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL
            """, [id]).first {
            factors.append(EnrolledFactor(id: EnrolledFactor.totpID, kind: .totp, createdAt: try row.date("confirmed_at"),
                                          lastUsedAt: try row.optionalDate("last_used_at")))
        }
        if let row = try await read("""
            SELECT COUNT(*) AS total, COUNT(used_at) AS used, MAX(created_at) AS created_at, MAX(used_at) AS last_used_at
            FROM recovery_codes WHERE user_id = $1
            """, [id]).first, try row.integer("total") > 0 {
            factors.append(EnrolledFactor(id: EnrolledFactor.recoveryCodesID, kind: .recoveryCode,
                                          createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"),
                                          remaining: try row.integer("total") - row.integer("used")))
        }
        return FactorInventory(factors: factors)
    }
}
