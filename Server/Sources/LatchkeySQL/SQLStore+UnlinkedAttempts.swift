import Foundation
import LatchkeyDomain

/// The smart lockout's counters: one row per wallet that unlinked devices failed on. Kept apart
/// from `users.failed_attempts` (the spec's count for linked devices), so strangers never move
/// the owner's count.
extension SQLStore {
    public func reserveUnlinkedAttempt(userID: String, limit: Int, now: Date) async throws -> Bool {
        try await !engine.query("""
            INSERT INTO unlinked_attempts (user_id, failures, locked_until, lockouts) VALUES ($1, 1, 0, 0)
            ON CONFLICT (user_id) DO UPDATE SET failures = unlinked_attempts.failures + 1
            WHERE unlinked_attempts.failures < $2 AND unlinked_attempts.locked_until <= $3
            RETURNING failures
            """, [.text(userID), .integer(Int64(limit)), now.epochSeconds]).isEmpty
    }

    public func recordUnlinkedFailure(userID: String, lockout: LockoutSettings, now: Date) async throws -> Date? {
        try await engine.transaction { db in
            // A lockout that ended within the longest one counts as "in a row": the next doubles.
            let locked = try await db.query("""
                UPDATE unlinked_attempts SET failures = 0,
                    lockouts = CASE WHEN locked_until > $3 THEN lockouts + 1 ELSE 1 END
                WHERE user_id = $1 AND failures >= $2 RETURNING lockouts
                """, [.text(userID), .integer(Int64(lockout.unlinkedThreshold)),
                      now.addingTimeInterval(-TimeInterval(lockout.maxTemporarySeconds)).epochSeconds])
            guard let row = locked.first else { return nil }
            let until = now.addingTimeInterval(TimeInterval(lockout.temporaryLockout(number: try row.integer("lockouts"))))
            try await db.execute("UPDATE unlinked_attempts SET locked_until = $2 WHERE user_id = $1",
                                 [.text(userID), until.epochSeconds])
            db.audit?.record(.unlinkedDevicesLocked, user: userID, details: ["until": until.formatted(.iso8601)], at: now)
            return until
        }
    }

    public func releaseUnlinkedAttempt(userID: String) async throws {
        try await engine.execute("UPDATE unlinked_attempts SET failures = failures - 1 WHERE user_id = $1 AND failures > 0",
                                 [.text(userID)])
    }

    public func clearUnlinkedAttempts(userID: String) async throws {
        try await Self.clearUnlinkedAttempts(userID: userID, in: engine)
    }

    /// Forgets the unlinked failures with `db`, e.g. in a reset's or a reactivation's transaction.
    package static func clearUnlinkedAttempts(userID: String, in db: any SQLExecutor) async throws {
        try await db.execute("DELETE FROM unlinked_attempts WHERE user_id = $1", [.text(userID)])
    }
}
