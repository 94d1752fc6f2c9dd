import Foundation
import LatchkeyDomain

extension SQLStore {
    public func createOperatorKey(_ key: OperatorKeyRecord) async throws {
        try await engine.execute("""
            INSERT INTO operator_keys (id, name, role, digest, created_at, expires_at, revoked_at, last_used_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """, [.text(key.id), .text(key.name), .text(key.role.rawValue), .text(key.digest), key.createdAt.epochSeconds,
                  key.expiresAt?.epochSeconds ?? .null, key.revokedAt?.epochSeconds ?? .null, key.lastUsedAt?.epochSeconds ?? .null])
    }

    public func operatorKey(digest: String) async throws -> OperatorKeyRecord? {
        try await engine.query("SELECT * FROM operator_keys WHERE digest = $1", [.text(digest)]).first.map(OperatorKeyRecord.init(row:))
    }

    public func operatorKeys() async throws -> [OperatorKeyRecord] {
        try await engine.query("SELECT * FROM operator_keys ORDER BY created_at DESC, id", []).map(OperatorKeyRecord.init(row:))
    }

    public func revokeOperatorKey(id: String, now: Date) async throws -> Bool {
        try await !engine.query("UPDATE operator_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id",
                                [.text(id), now.epochSeconds]).isEmpty
    }

    public func touchOperatorKey(id: String, now: Date, notBefore: Date) async throws {
        try await engine.execute("""
            UPDATE operator_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)
            """, [.text(id), now.epochSeconds, notBefore.epochSeconds])
    }
}

extension OperatorKeyRecord {
    package init(row: SQLRow) throws {
        self.init(id: try row.string("id"), name: try row.string("name"), role: try row.value("role"), digest: try row.string("digest"),
                  createdAt: try row.date("created_at"), expiresAt: try row.optionalDate("expires_at"),
                  revokedAt: try row.optionalDate("revoked_at"), lastUsedAt: try row.optionalDate("last_used_at"))
    }
}
