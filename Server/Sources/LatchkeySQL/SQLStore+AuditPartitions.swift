import Foundation
import LatchkeyDomain

/// The trail's partitions on PostgreSQL (`AuditPartitioning`): made ahead, and dropped whole
/// once past the retention. SQLite's trail is one table: nothing to make or drop.
extension SQLStore {
    public func prepareAuditPartitions(from: Date, through: Date) async throws -> Int {
        guard engine.kind == .postgres else { return 0 }
        return try await engine.transaction(.unbounded) { db in
            // Replicas take turns first (the wait holds up no one else), then the trail's own
            // lock is waited for briefly.
            try await db.execute("SELECT pg_advisory_xact_lock(\(AuditPartitioning.lock))")
            try await Self.waitBriefly(db)
            return try await db.query("SELECT audit_events_make_partitions($1, $2) AS made", [from.epochSeconds, through.epochSeconds])
                .first.map { try $0.integer("made") } ?? 0
        }
    }

    /// Making or dropping a partition locks the whole trail for an instant, but must wait for
    /// every statement reading it; meanwhile the writes queue behind the waiting lock. So it
    /// waits 200 ms at most (well within a request's database bound) and is tried again the next
    /// hour (weeks are made four ahead).
    static func waitBriefly(_ db: any SQLExecutor) async throws {
        try await db.execute("SET LOCAL lock_timeout = '200ms'")
    }

    /// Drops the oldest partition that ends at or before `date` (and a day before the database's
    /// own time at the latest, as the trail's guard allows no younger deletion) — a week, or the
    /// table from before partitioning once wholly past — in a transaction of its own; answers the
    /// rows it held, or nil when no partition is that old or another server is dropping or making
    /// partitions now (it tries again at its next purge). The rows are counted before the drop
    /// takes the trail's lock. A week that holds `date` keeps its older events until it is wholly past.
    static func dropOldestAuditPartition(before date: Date, engine: any SQLEngine) async throws -> Int? {
        try await engine.transaction(.unbounded) { db in
            try await waitBriefly(db)
            let oldest = """
                SELECT name FROM audit_event_partitions
                WHERE NOT is_default AND range_end <= least($1, extract(epoch FROM now())::bigint - 86400)
                ORDER BY range_start NULLS FIRST LIMIT 1
                """
            guard let candidate = try await db.query(oldest, [date.epochSeconds]).first.map({ try $0.string("name") }) else {
                return nil
            }
            // Counting locks the partition only (reads beside it go on), before the trail's lock.
            let count = try await db.query("SELECT COUNT(*) AS n FROM \(quoted(candidate))", []).first.map { try $0.integer("n") } ?? 0
            let locked = try await db.query("SELECT pg_try_advisory_xact_lock(\(AuditPartitioning.lock)) AS locked", [])
            guard try locked.first?.integer("locked") == 1 else { return nil }
            // Another server may have dropped it between the two reads.
            guard try await db.query(oldest, [date.epochSeconds]).first.map({ try $0.string("name") }) == candidate else { return nil }
            try await db.execute("DROP TABLE \(quoted(candidate))")
            return count
        }
    }

    /// The tables whose rows past the retention are deleted one by one: the default partition
    /// and the table from before partitioning (unbounded below).
    static func auditTablesPurgedByRow(engine: any SQLEngine) async throws -> [String] {
        try await engine.read("""
            SELECT name FROM audit_event_partitions WHERE is_default OR range_start IS NULL ORDER BY range_start NULLS FIRST
            """, []).map { quoted(try $0.string("name")) }
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
