import Foundation
import LatchkeyDomain

extension SQLStore {
    public func reserveTokenAttempt(digest: String, purpose: TokenPurpose, now: Date, limit: Int) async throws -> TokenRecord? {
        try await engine.query("""
            UPDATE tokens SET attempts = attempts + 1
            WHERE digest = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3 AND attempts < $4
            RETURNING *
            """, [.text(digest), .text(purpose.rawValue), now.epochSeconds, .integer(Int64(limit))])
            .first.map { try TokenRecord(row: $0) }
    }

    public func completeReset(grant digest: String, purpose: TokenPurpose, userID: String, change: CredentialChange,
                              limits: AttemptLimits, messages: [OutboxMessage], now: Date) async throws -> Bool {
        let completed = try await engine.transaction { db in
            let consumed = try await db.query("""
                UPDATE tokens SET used_at = $1
                WHERE digest = $2 AND purpose = $3 AND user_id = $4 AND used_at IS NULL AND expires_at > $1 RETURNING digest
                """, [now.epochSeconds, .text(digest), .text(purpose.rawValue), .text(userID)])
            if consumed.isEmpty { return false }
            // Links stay valid until used or expired (a stranger's request voids nothing); a
            // completed reset uses up the account's other links.
            try await db.execute("""
                UPDATE tokens SET used_at = $1 WHERE user_id = $2 AND used_at IS NULL AND purpose IN ($3, $4)
                """, [now.epochSeconds, .text(userID), .text(TokenPurpose.passwordReset.rawValue),
                      .text(TokenPurpose.passcodeReset.rawValue)])
            try await db.execute("""
                UPDATE devices SET status = 'active', failed_attempts = 0
                WHERE user_id = $1 AND status = 'deactivated' AND failed_attempts >= $2
                """, [.text(userID), .integer(Int64(limits.device))])
            try await db.execute("""
                UPDATE users SET status = CASE WHEN status = 'deactivated' AND failed_attempts >= $2 THEN 'active' ELSE status END,
                    failed_attempts = 0, email_verified = 1, pending_until = NULL, updated_at = $3
                WHERE id = $1
                """, [.text(userID), .integer(Int64(limits.wallet)), now.epochSeconds])
            try await Self.clearUnlinkedAttempts(userID: userID, in: db)
            switch change {
            case .password(let hash, let keep):
                try await Self.replacePassword(userID: userID, hash: hash, keep: keep, now: now, in: db)
                try await Self.endOtherSessions(userID: userID, keepSession: nil, now: now, in: db)
                try await Self.revokeCertificates(userID: userID, deviceID: nil, now: now, in: db)
            case .passcode(let hash):
                try await db.execute("UPDATE users SET passcode_hash = $2 WHERE id = $1", [.text(userID), .text(hash)])
                // Whoever knew the old PIN may hold a session or device token: end them like a password reset does.
                try await Self.endOtherSessions(userID: userID, keepSession: nil, now: now, in: db)
            }
            for message in messages { try await Self.insert(message, into: db) }
            return true
        }
        if completed { sessions.remove(userID: userID, deviceID: nil) }
        return completed
    }
}
