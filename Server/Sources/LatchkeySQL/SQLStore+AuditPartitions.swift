import Foundation
import LatchkeyDomain

/// The trail's partitions on PostgreSQL (`AuditPartitioning`): made ahead, and dropped whole
/// once past the retention. SQLite's trail is one table: nothing to make or drop.
extension SQLStore {
    public func prepareAuditPartitions(from: Date, through: Date) async throws -> Int {
        guard engine.kind == .postgres else { return 0 }
        return try await engine.transaction(.unbounded) { db in
            try await Self.waitBriefly(db)
            return try await db.query("SELECT audit_events_make_partitions($1, $2) AS made", [from.epochSeconds, through.epochSeconds])
                .first.map { try $0.integer("made") } ?? 0
        }
    }

    /// Making or dropping a partition locks the whole trail for an instant, but must wait for
    /// every statement reading it; meanwhile the writes queue behind the waiting lock. So it
    /// waits two seconds at most and is tried again the next hour (weeks are made four ahead).
    static func waitBriefly(_ db: any SQLExecutor) async throws {
        try await db.execute("SET LOCAL lock_timeout = '2s'")
    }

    /// Drops the partitions that end at or before `date` (and a day before the database's own
    /// time at the latest, as the trail's guard allows no younger deletion), counting their
    /// rows; answers that count and the tables whose older rows are deleted one by one instead:
    /// the default partition and the table from before partitioning (unbounded below). A week
    /// that holds `date` keeps its older events until the week is wholly past.
    static func dropAuditPartitions(before date: Date, in db: any SQLExecutor) async throws -> (dropped: Int, tables: [String]) {
        try await waitBriefly(db)
        try await db.execute("SELECT pg_advisory_xact_lock(\(AuditPartitioning.lock))")
        var dropped = 0, tables: [String] = []
        for row in try await db.query("""
            SELECT name, is_default, range_start, range_end <= least($1, extract(epoch FROM now())::bigint - 86400) AS past
            FROM audit_event_partitions ORDER BY range_start NULLS FIRST
            """, [date.epochSeconds]) {
            let raw = try row.string("name")
            let name = "\"" + raw.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            if try row.optionalInteger("past") == 1 {
                dropped += try await db.query("SELECT COUNT(*) AS n FROM \(name)", []).first.map { try $0.integer("n") } ?? 0
                try await db.execute("DROP TABLE \(name)")
            } else if try row.integer("is_default") == 1 || row.optionalInteger("range_start") == nil {
                tables.append(name)
            }
        }
        return (dropped, tables)
    }
}
