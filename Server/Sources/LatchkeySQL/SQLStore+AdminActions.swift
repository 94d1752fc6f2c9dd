import Foundation
import LatchkeyCore
import LatchkeyDomain

extension SQLStore {
    public func liveSession(userID: String, sessionID: String, now: Date, idleBefore: Date) async throws -> SessionRecord? {
        // The user's sessions are few (the `sessions_user` index); the prefix picks one of them.
        try await engine.read("""
            SELECT * FROM sessions WHERE user_id = $1 AND substr(digest, 1, 16) = $2 AND revoked_at IS NULL AND expires_at > $3
                AND last_seen_at > $4
            """, [.text(userID), .text(sessionID), now.epochSeconds, idleBefore.epochSeconds]).first.map { try SessionRecord(row: $0) }
    }

    public func eraseUser(userID: String, now: Date) async throws -> Bool {
        let erased = try await engine.transaction { db -> Bool in
            guard let user = try await db.query("SELECT * FROM users WHERE id = $1", [.text(userID)]).first
                .map({ try UserRecord(row: $0) }) else { return false }
            // Every address the user had or was moving to: the current ones and those its links carry.
            let linked = try await db.query("SELECT data FROM tokens WHERE user_id = $1 AND data IS NOT NULL", [.text(userID)])
                .compactMap { try $0.optionalString("data") }.filter { EmailAddress.isValid($0) }
            let addresses = Set([user.email, user.phoneNormalized ?? ""] + linked).filter { !$0.isEmpty }
            for address in addresses.sorted() {
                try await db.execute("DELETE FROM outbox WHERE recipient = $1", [.text(address)])
                try await db.execute("DELETE FROM federation_nonces WHERE email = $1", [.text(address)])
            }
            try await db.execute("""
                DELETE FROM federation_nonces WHERE EXISTS (SELECT 1 FROM federated_identities f
                    WHERE f.user_id = $1 AND f.provider_id = federation_nonces.provider_id AND f.subject = federation_nonces.subject)
                """, [.text(userID)])
            if let phone = user.phoneNormalized {
                try await db.execute("DELETE FROM flows WHERE phone = $1", [.text(phone)])
            }
            // Every other row of the user goes with it (`ON DELETE CASCADE`); then its events may
            // be redacted (the trail's guard allows it only of a user who no longer exists).
            try await db.execute("DELETE FROM users WHERE id = $1", [.text(userID)])
            try await db.execute("""
                UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL
                WHERE user_id = $1 AND type NOT IN ('operator.command', 'user.erased')
                    AND (details <> '{}' OR client_ip IS NOT NULL OR device_id IS NOT NULL)
                """, [.text(userID)])
            return true
        }
        if erased {
            sessions.remove(userID: userID, deviceID: nil)
            // The rows are zeroed in the pages the transaction wrote (`secure_delete`); the
            // checkpoint puts those pages in the file and drops the WAL's older copies of them.
            // The erasure has committed whatever it answers: readers that hold the WAL past its
            // waits leave those copies to SQLite's own checkpoints, which write over them later.
            try? await engine.checkpoint()
        }
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
