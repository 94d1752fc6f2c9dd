import Foundation
import LatchkeyDomain

/// The console's failed sign-ins: one row per operator and client address that failed, so the
/// failures of a stranger's address never lock the owner's address out. Each count is moved by
/// one statement, so parallel failures on several replicas all count.
extension SQLStore {
    public func operatorLockout(id: String, clientIP: String, now: Date) async throws -> Date? {
        try await engine.read("""
            SELECT locked_until FROM operator_attempts WHERE operator_id = $1 AND client_ip = $2 AND locked_until > $3
            """, [.text(id), .text(clientIP), now.epochSeconds]).first.map { try $0.date("locked_until") }
    }

    public func recordOperatorFailure(id: String, clientIP: String, policy: OperatorLockoutPolicy, now: Date) async throws -> Date? {
        // Rows that neither lock nor count any more go, so addresses that failed once do not pile up.
        try await engine.execute("""
            DELETE FROM operator_attempts WHERE operator_id = $1 AND locked_until <= $2 AND last_failed_at <= $3
            """, [.text(id), now.epochSeconds, now.addingTimeInterval(-policy.window).epochSeconds])
        // The count starts again at 1 when the address's lock has ended or its last failure is older
        // than the window; it reaching the threshold locks the address. A failure while the lock runs
        // (a parallel request) changes nothing, so a lock is never extended.
        let restart = "(operator_attempts.locked_until > 0 OR operator_attempts.last_failed_at <= $4)"
        let count = "CASE WHEN \(restart) THEN 1 ELSE operator_attempts.failures + 1 END"
        let rows = try await engine.query("""
            INSERT INTO operator_attempts (operator_id, client_ip, failures, last_failed_at, locked_until)
            VALUES ($1, $2, 1, $3, CASE WHEN $5 <= 1 THEN $6 ELSE 0 END)
            ON CONFLICT (operator_id, client_ip) DO UPDATE SET failures = \(count), last_failed_at = $3,
                locked_until = CASE WHEN \(count) >= $5 THEN $6 ELSE 0 END
            WHERE operator_attempts.locked_until <= $3
            RETURNING locked_until
            """, [.text(id), .text(clientIP), now.epochSeconds, now.addingTimeInterval(-policy.window).epochSeconds,
                  .integer(Int64(policy.threshold)), now.addingTimeInterval(policy.lockFor).epochSeconds])
        guard let row = rows.first else { return try await operatorLockout(id: id, clientIP: clientIP, now: now) }
        let until = try row.date("locked_until")
        return until > now ? until : nil
    }

    public func clearOperatorFailures(id: String, clientIP: String) async throws {
        try await engine.execute("DELETE FROM operator_attempts WHERE operator_id = $1 AND client_ip = $2", [.text(id), .text(clientIP)])
    }

    /// Forgets every address's failures of an operator with `db` (a setup completed or started again).
    package static func clearOperatorAttempts(id: String, in db: any SQLExecutor) async throws {
        try await db.execute("DELETE FROM operator_attempts WHERE operator_id = $1", [.text(id)])
    }
}
