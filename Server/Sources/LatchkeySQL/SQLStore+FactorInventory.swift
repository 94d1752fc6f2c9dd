import Foundation
import LatchkeyDomain

/// `FactorInventoryStore` on both engines: one read per factor table.
extension SQLStore {
    public func factorInventory(userID: String) async throws -> FactorInventory {
        let id = SQLValue.text(userID)
        var factors: [EnrolledFactor] = []
        // The questions are answered at registration (or import): they date from the wallet.
        let questions = try await engine.read("""
            SELECT u.created_at FROM users u WHERE u.id = $1 AND EXISTS (SELECT 1 FROM mfa_answers a WHERE a.user_id = u.id)
            """, [id])
        if let row = questions.first {
            factors.append(EnrolledFactor(id: EnrolledFactor.questionsID, kind: .question, createdAt: try row.date("created_at")))
        }
        for row in try await engine.read("""
            SELECT id, name, created_at, last_used_at, backup_state FROM passkeys WHERE user_id = $1 ORDER BY created_at, id
            """, [id]) {
            factors.append(EnrolledFactor(id: try row.string("id"), kind: .passkey, name: try row.string("name"),
                                          createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"),
                                          backedUp: try row.integer("backup_state") != 0))
        }
        // A pending (unconfirmed) authenticator app is not a factor yet.
        if let row = try await engine.read("""
            SELECT confirmed_at, last_used_at FROM totp_factors WHERE user_id = $1 AND confirmed_at IS NOT NULL
            """, [id]).first {
            factors.append(EnrolledFactor(id: EnrolledFactor.totpID, kind: .totp, createdAt: try row.date("confirmed_at"),
                                          lastUsedAt: try row.optionalDate("last_used_at")))
        }
        if let row = try await engine.read("""
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
