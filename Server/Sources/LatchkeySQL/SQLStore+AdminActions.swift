import Foundation
import LatchkeyDomain

extension SQLStore {
    public func endSession(userID: String, sessionID: String, now: Date) async throws -> Bool {
        // The user's sessions are few (the `sessions_user` index); the prefix picks one of them.
        let revoked = try await engine.query("""
            UPDATE sessions SET revoked_at = $3
            WHERE user_id = $1 AND substr(digest, 1, 16) = $2 AND revoked_at IS NULL RETURNING digest
            """, [.text(userID), .text(sessionID), now.epochSeconds]).map { try $0.string("digest") }
        for digest in revoked { sessions.remove(digest) }
        return !revoked.isEmpty
    }

    public func eraseUser(userID: String, now: Date) async throws -> Bool {
        let erased = try await engine.transaction { db -> Bool in
            guard let user = try await db.query("SELECT * FROM users WHERE id = $1", [.text(userID)]).first
                .map({ try UserRecord(row: $0) }) else { return false }
            let addresses = [user.email, user.phoneNormalized].compactMap { $0 }
            for address in addresses {
                try await db.execute("DELETE FROM outbox WHERE recipient = $1", [.text(address)])
            }
            if let phone = user.phoneNormalized {
                try await db.execute("DELETE FROM flows WHERE phone = $1", [.text(phone)])
            }
            try await db.execute("""
                UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL
                WHERE user_id = $1 AND type <> 'operator.command' AND (details <> '{}' OR client_ip IS NOT NULL OR device_id IS NOT NULL)
                """, [.text(userID)])
            // Every other row of the user goes with it (`ON DELETE CASCADE`).
            try await db.execute("DELETE FROM users WHERE id = $1", [.text(userID)])
            return true
        }
        if erased { sessions.remove(userID: userID, deviceID: nil) }
        return erased
    }

    public func outboxMessages(state: CourierMessageState?, after cursor: MessagePageCursor?, limit: Int) async throws -> [OutboxMessage] {
        // Each state's condition as the partial indexes of migration 14 state it.
        let condition = switch state {
        case .pending: "delivered_at IS NULL AND failed_at IS NULL"
        case .sent: "delivered_at IS NOT NULL"
        case .failed: "failed_at IS NOT NULL"
        case nil: "1 = 1"
        }
        var conditions = [condition]
        var binds: [SQLValue] = []
        if let cursor {
            conditions.append("(created_at, id) < ($1, $2)")
            binds = [cursor.createdAt.epochSeconds, .text(cursor.id)]
        }
        binds.append(.integer(Int64(limit)))
        return try await engine.read("""
            SELECT * FROM outbox WHERE \(conditions.joined(separator: " AND ")) ORDER BY created_at DESC, id DESC LIMIT $\(binds.count)
            """, binds).map { try OutboxMessage(row: $0) }
    }
}
