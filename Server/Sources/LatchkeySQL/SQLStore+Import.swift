import Foundation
import LatchkeyDomain

/// Imports in batches: one transaction per batch, one multi-row statement per table, so a million
/// users are minutes of work; `ON CONFLICT … DO NOTHING` leaves wallets created meanwhile (by a
/// running server, or an earlier run) alone without failing the batch.
extension SQLStore {
    public func importUsers(_ users: [ImportedUser], update: Bool, keepPasswords: Int, notices: @escaping ImportNotices,
                            now: Date) async throws -> [ImportOutcome] {
        guard let issuer = users.first?.user.issuer else { return [] }
        let (outcomes, updated) = try await engine.transaction { db in
            let inserted = try await db.insert(into: "users", columns: Self.userColumns, rows: users.map { Self.row($0.user) },
                                               suffix: "ON CONFLICT (issuer, email_normalized) DO NOTHING RETURNING id")
            let created = Set(try inserted.map { try $0.string("id") })
            let fresh = users.filter { created.contains($0.user.id) }
            try await db.insert(into: "mfa_answers", columns: ["user_id", "question", "answer_hash"], rows: fresh.flatMap { user in
                (user.answers ?? []).map { [.text(user.user.id), .text($0.question), .text($0.answerHash)] }
            })
            for user in fresh {
                db.audit?.record(.userRegistered, user: user.user.id, details: ["method": "import"], at: now)
            }
            var outcomes = users.map { created.contains($0.user.id) ? ImportOutcome.created : .skipped }
            let existing = users.filter { !created.contains($0.user.id) }
            guard update, !existing.isEmpty else { return (outcomes, [String]()) }
            let placeholders = existing.indices.map { "$\($0 + 2)" }.joined(separator: ", ")
            let stored = try await db.query("""
                SELECT id, email_normalized, profile_json, password_hash, passcode_hash FROM users
                WHERE issuer = $1 AND email_normalized IN (\(placeholders))
                """, [.text(issuer)] + existing.map { .text($0.user.emailNormalized) })
            var byEmail: [String: StoredCredentials] = [:]
            for row in stored {
                byEmail[try row.string("email_normalized")] = StoredCredentials(
                    id: try row.string("id"), profile: try row.string("profile_json"), passwordHash: try row.optionalString("password_hash"),
                    passcodeHash: try row.optionalString("passcode_hash"))
            }
            var updated: [String] = []
            for (index, user) in users.enumerated() where outcomes[index] == .skipped {
                // Deleted since the insert was refused: left for the next run.
                guard let target = byEmail[user.user.emailNormalized] else { continue }
                try await Self.overwrite(target, with: user, keepPasswords: keepPasswords, notices: notices, now: now, in: db)
                outcomes[index] = .updated
                updated.append(target.id)
            }
            return (outcomes, updated)
        }
        for id in updated { sessions.remove(userID: id, deviceID: nil) }
        return outcomes
    }

    /// What an update compares the line's credentials with: the wallet's row as stored.
    private struct StoredCredentials {
        var id: String
        var profile: String
        var passwordHash: String?
        var passcodeHash: String?
    }

    /// Replaces what the line gave; whoever held the wallet's sessions and device tokens is signed
    /// out, as after a password change. Each credential it replaces with a different one is an
    /// event and a security notice to the owner, as a change through the API is.
    private static func overwrite(_ stored: StoredCredentials, with imported: ImportedUser, keepPasswords: Int, notices: @escaping ImportNotices,
                                  now: Date, in db: any SQLExecutor) async throws {
        let (id, user) = (stored.id, imported.user)
        var replaced: [ImportedCredential] = []
        if let hash = user.passwordHash, hash != stored.passwordHash {
            try await replacePassword(userID: id, hash: hash, keep: keepPasswords, now: now, in: db)
            replaced.append(.password)
        }
        if let hash = user.passcodeHash, hash != stored.passcodeHash { replaced.append(.passcode) }
        try await db.execute("""
            UPDATE users SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name),
                phone = COALESCE($4, phone), external_id = COALESCE($5, external_id),
                passcode_hash = COALESCE($6, passcode_hash), email_verified = $7, app_instance_verified = $7,
                profile_json = $8, updated_at = $9, failed_attempts = 0
            WHERE id = $1
            """, [.text(id), user.firstName.sql, user.lastName.sql, user.phone.sql, user.externalId.sql, user.passcodeHash.sql,
                  .integer(user.emailVerified ? 1 : 0),
                  .text(EnrollmentService.StoredProfile.merging(user.profileJSON, into: stored.profile)), now.epochSeconds])
        if let answers = imported.answers {
            let current = try await db.query("SELECT question, answer_hash FROM mfa_answers WHERE user_id = $1", [.text(id)])
                .map { "\(try $0.string("question"))\n\(try $0.string("answer_hash"))" }
            if Set(current) != Set(answers.map { "\($0.question)\n\($0.answerHash)" }) { replaced.append(.mfaAnswers) }
            try await db.execute("DELETE FROM mfa_answers WHERE user_id = $1", [.text(id)])
            try await db.execute("DELETE FROM mfa_pending_questions WHERE user_id = $1", [.text(id)])
            try await insert(answers, userID: id, into: db)
        }
        try await endOtherSessions(userID: id, keepSession: nil, now: now, in: db)
        db.audit?.record(.operatorCommand, user: id, details: OperatorCommand.importUpdate.details, at: now)
        for credential in replaced { db.audit?.record(credential.event, user: id, details: ["by": "import"], at: now) }
        if !replaced.isEmpty {
            for message in try notices(user, replaced) { try await insert(message, into: db) }
        }
    }
}
