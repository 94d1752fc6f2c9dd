import Foundation
import LatchkeyCore
import LatchkeyDomain

extension SQLStore {
    /// `column = column + excluded.column`, stopped at `LoginStatistics.sumCap`: both terms are at
    /// most the cap, so no engine overflows.
    private static func capped(_ column: String, in table: String) -> String {
        "\(column) = CASE WHEN \(table).\(column) + excluded.\(column) > \(LoginStatistics.sumCap) THEN \(LoginStatistics.sumCap) "
            + "ELSE \(table).\(column) + excluded.\(column) END"
    }

    public func addLoginStatistics(userID: String, deviceID: String, day: Int, batchID: String,
                                   _ statistics: [LoginStatistics]) async throws -> Bool {
        let key: [SQLValue] = [.text(userID), .text(deviceID)]
        return try await engine.transaction { db in
            // A batch sent again (its answer was lost) is taken once.
            let taken = try await db.query("""
                INSERT INTO login_statistics_batches (user_id, device_id, batch_id, day) VALUES ($1, $2, $3, $4)
                ON CONFLICT (user_id, device_id, batch_id) DO NOTHING RETURNING batch_id
                """, key + [.text(batchID), .integer(Int64(day))])
            guard !taken.isEmpty else { return false }
            // Upserts that add: two replicas taking batches of one device on one day add up.
            for entry in statistics {
                let method = SQLValue.text(entry.method.rawValue), dayValue = SQLValue.integer(Int64(day))
                try await db.execute("""
                    INSERT INTO login_statistics (user_id, device_id, method, day, successes, mfa_prompts,
                                                  latency_total_ms, latency_max_ms)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                    ON CONFLICT (user_id, device_id, method, day) DO UPDATE SET
                        \(Self.capped("successes", in: "login_statistics")), \(Self.capped("mfa_prompts", in: "login_statistics")),
                        \(Self.capped("latency_total_ms", in: "login_statistics")),
                        latency_max_ms = CASE WHEN excluded.latency_max_ms > login_statistics.latency_max_ms
                                              THEN excluded.latency_max_ms ELSE login_statistics.latency_max_ms END
                    """, key + [method, dayValue, .integer(Int64(entry.successes)), .integer(Int64(entry.mfaPrompts)),
                                .integer(Int64(entry.totalLatencyMilliseconds)), .integer(Int64(entry.maximumLatencyMilliseconds))])
                for (code, count) in entry.failures.sorted(by: { $0.key < $1.key }) where count > 0 {
                    try await db.execute("""
                        INSERT INTO login_statistics_failures (user_id, device_id, method, day, code, count)
                        VALUES ($1, $2, $3, $4, $5, $6)
                        ON CONFLICT (user_id, device_id, method, day, code) DO UPDATE SET
                            \(Self.capped("count", in: "login_statistics_failures"))
                        """, key + [method, dayValue, .text(code), .integer(Int64(count))])
                }
            }
            return true
        }
    }

    public func loginStatistics(userID: String, deviceID: String?, sinceDay: Int) async throws -> [DailyLoginStatistics] {
        let filter = deviceID == nil ? "" : " AND device_id = $3"
        let binds: [SQLValue] = [.text(userID), .integer(Int64(sinceDay))] + (deviceID.map { [.text($0)] } ?? [])
        // Both tables in one transaction: one snapshot.
        let (rows, failures) = try await engine.transaction { db in
            (try await db.query("SELECT * FROM login_statistics WHERE user_id = $1 AND day >= $2\(filter) ORDER BY day DESC, device_id, method",
                                binds),
             try await db.query("SELECT * FROM login_statistics_failures WHERE user_id = $1 AND day >= $2\(filter)", binds))
        }
        var byRow: [String: [String: Int]] = [:]
        for row in failures {
            let id = "\(try row.string("device_id"))\u{0}\(try row.string("method"))\u{0}\(try row.integer("day"))"
            byRow[id, default: [:]][try row.string("code")] = try row.integer("count")
        }
        return try rows.map { row in
            let (device, method, day) = (try row.string("device_id"), try row.string("method"), try row.integer("day"))
            return DailyLoginStatistics(deviceID: device, day: day, statistics: LoginStatistics(
                method: try row.value("method"), successes: try row.integer("successes"),
                mfaPrompts: try row.integer("mfa_prompts"), failures: byRow["\(device)\u{0}\(method)\u{0}\(day)"] ?? [:],
                totalLatencyMilliseconds: try row.integer("latency_total_ms"),
                maximumLatencyMilliseconds: try row.integer("latency_max_ms")))
        }
    }

    public func purgeLoginStatistics(beforeDay day: Int) async throws -> Int {
        // Bounded statements (at most `purgeBatch` rows each), like the other purges; the answer is
        // the largest count of the three tables, so the caller goes on while any had a full batch.
        let bound: [SQLValue] = [.integer(Int64(day)), .integer(Int64(Self.purgeBatch))]
        var most = 0
        for (table, key) in [("login_statistics", "user_id, device_id, method, day"),
                             ("login_statistics_failures", "user_id, device_id, method, day, code")] {
            let deleted = try await engine.query("""
                DELETE FROM \(table) WHERE (\(key)) IN (SELECT \(key) FROM \(table) WHERE day < $1 LIMIT $2) RETURNING day
                """, bound).count
            most = max(most, deleted)
        }
        return most
    }

    public func purgeLoginStatisticsBatches(beforeDay day: Int) async throws -> Int {
        try await engine.query("""
            DELETE FROM login_statistics_batches WHERE (user_id, device_id, batch_id) IN (
                SELECT user_id, device_id, batch_id FROM login_statistics_batches WHERE day < $1 LIMIT $2) RETURNING day
            """, [.integer(Int64(day)), .integer(Int64(Self.purgeBatch))]).count
    }

    /// Deletes a device's statistics with `db` (the device was unlinked).
    package static func deleteLoginStatistics(userID: String, deviceID: String, in db: any SQLExecutor) async throws {
        for table in ["login_statistics", "login_statistics_failures", "login_statistics_batches"] {
            try await db.execute("DELETE FROM \(table) WHERE user_id = $1 AND device_id = $2", [.text(userID), .text(deviceID)])
        }
    }
}
