import Foundation
import LatchkeyCore
import LatchkeyDomain

extension SQLStore {
    public func updatePassword(userID: String, hash: String, now: Date, keep: Int, keepSession: String?,
                               messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await Self.replacePassword(userID: userID, hash: hash, keep: keep, now: now, in: db)
            try await Self.endOtherSessions(userID: userID, keepSession: keepSession, now: now, in: db)
            for message in messages { try await Self.insert(message, into: db) }
        }
        sessions.remove(userID: userID, deviceID: nil)
    }

    /// Sets the password hash inside a transaction, moving the previous one into the history.
    package static func replacePassword(userID: String, hash: String, keep: Int, now: Date, in db: any SQLExecutor) async throws {
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

    public func upgradeHash(userID: String, credential: StoredCredential, hash: String) async throws {
        switch credential {
        case .password:
            try await engine.execute("UPDATE users SET password_hash = $2 WHERE id = $1", [.text(userID), .text(hash)])
        case .passcode:
            try await engine.execute("UPDATE users SET passcode_hash = $2 WHERE id = $1", [.text(userID), .text(hash)])
        case .answer(let question):
            try await engine.execute("UPDATE mfa_answers SET answer_hash = $3 WHERE user_id = $1 AND question = $2",
                                     [.text(userID), .text(question), .text(hash)])
        }
    }

    public func passwordHistory(userID: String, limit: Int) async throws -> [String] {
        try await engine.read("""
            SELECT password_hash FROM password_history WHERE user_id = $1 ORDER BY created_at DESC, password_hash LIMIT $2
            """, [.text(userID), .integer(Int64(max(0, limit)))]).map { try $0.string("password_hash") }
    }

    public func updatePasscode(userID: String, hash: String, now: Date, keepSession: String?,
                               messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await db.execute("UPDATE users SET passcode_hash = $2, updated_at = $3 WHERE id = $1",
                                 [.text(userID), .text(hash), now.epochSeconds])
            try await Self.endOtherSessions(userID: userID, keepSession: keepSession, now: now, in: db)
            for message in messages { try await Self.insert(message, into: db) }
        }
        sessions.remove(userID: userID, deviceID: nil)
    }

    /// What a credential change ends, inside its transaction: every session but `keepSession` and
    /// every device token.
    package static func endOtherSessions(userID: String, keepSession: String?, now: Date, in db: any SQLExecutor) async throws {
        try await revokeSessions(userID: userID, except: keepSession, deviceID: nil, now: now, in: db)
        try await revokeDeviceTokens(userID: userID, now: now, in: db)
    }

    public func replaceMFAAnswers(userID: String, answers: [MFAAnswerRecord], now: Date, messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await db.execute("DELETE FROM mfa_answers WHERE user_id = $1", [.text(userID)])
            try await Self.insert(answers, userID: userID, into: db)
            try await db.execute("UPDATE users SET updated_at = $2 WHERE id = $1", [.text(userID), now.epochSeconds])
            for message in messages { try await Self.insert(message, into: db) }
        }
    }

    public func setLocked(userID: String, locked: Bool) async throws {
        try await engine.execute("UPDATE users SET locked = $2 WHERE id = $1", [.text(userID), .integer(locked ? 1 : 0)])
    }

    public func applyProfileUpdate(_ user: UserRecord, answers: [MFAAnswerRecord]?, tokens: [TokenRecord],
                                   messages: [OutboxMessage], now: Date) async throws {
        try await engine.transaction { db in
            try await db.execute("""
                UPDATE users SET first_name = $2, last_name = $3, external_id = $4, profile_json = $5, updated_at = $6
                WHERE id = $1
                """, [.text(user.id), user.firstName.sql, user.lastName.sql, user.externalId.sql, .text(user.profileJSON),
                      now.epochSeconds])
            if let answers {
                try await db.execute("DELETE FROM mfa_answers WHERE user_id = $1", [.text(user.id)])
                try await Self.insert(answers, userID: user.id, into: db)
            }
            // One held change at a time: a newer one voids the link of the earlier.
            if tokens.contains(where: { $0.purpose == .profileChange }) {
                try await db.execute("""
                    UPDATE tokens SET used_at = $2 WHERE user_id = $1 AND purpose = $3 AND used_at IS NULL
                    """, [.text(user.id), now.epochSeconds, .text(TokenPurpose.profileChange.rawValue)])
            }
            for token in tokens { try await Self.insert(token, into: db) }
            for message in messages { try await Self.insert(message, into: db) }
        }
    }

    public func revertEmail(userID: String, email: String, now: Date) async throws {
        do {
            try await engine.transaction { db in
                try await db.execute("""
                    UPDATE users SET email = $2, email_normalized = $3, email_verified = 1, updated_at = $4 WHERE id = $1
                    """, [.text(userID), .text(email), .text(EmailAddress.normalized(email)), now.epochSeconds])
                // Every change asked for from the session being thrown out is void with it.
                try await db.execute("""
                    UPDATE tokens SET used_at = $2 WHERE user_id = $1 AND purpose IN ($3, $4) AND used_at IS NULL
                    """, [.text(userID), now.epochSeconds, .text(TokenPurpose.emailChange.rawValue),
                          .text(TokenPurpose.profileChange.rawValue)])
                try await Self.endOtherSessions(userID: userID, keepSession: nil, now: now, in: db)
            }
        } catch SQLEngineError.uniqueViolation(.userEmail) {
            throw StoreError.emailInUse
        }
        sessions.remove(userID: userID, deviceID: nil)
    }

    public func changeEmail(userID: String, email: String, replacingPending: Bool, now: Date) async throws {
        let normalized = EmailAddress.normalized(email)
        do {
            let replaced = try await engine.transaction { db in
                // The link proved the inbox: an unverified registration of the address reserves nothing.
                let replaced = !replacingPending ? [] : try await db.query("""
                    DELETE FROM users WHERE issuer = (SELECT issuer FROM users WHERE id = $1) AND email_normalized = $2
                        AND email_verified = 0 AND pending_until IS NOT NULL AND id <> $1 RETURNING id
                    """, [.text(userID), .text(normalized)]).map { try $0.string("id") }
                for id in replaced { db.audit?.record(.registrationReplaced, user: id, details: ["by": userID], at: now) }
                try await db.execute("""
                    UPDATE users SET email = $2, email_normalized = $3, email_verified = 1, pending_until = NULL, updated_at = $4
                    WHERE id = $1
                    """, [.text(userID), .text(email), .text(normalized), now.epochSeconds])
                return replaced
            }
            for id in replaced { sessions.remove(userID: id, deviceID: nil) }
        } catch SQLEngineError.uniqueViolation(.userEmail) {
            throw StoreError.emailInUse
        }
    }

    public func issueToken(_ token: TokenRecord, messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await Self.insert(token, into: db)
            for message in messages { try await Self.insert(message, into: db) }
        }
    }
}
