import Foundation
import LatchkeyCore
import LatchkeyDomain

extension SQLStore {
    public func addLoginStatistics(userID: String, deviceID: String, day: Int, _ statistics: [LoginStatistics]) async throws {
        guard !statistics.isEmpty else { return }
        let key: [SQLValue] = [.text(userID), .text(deviceID)]
        try await engine.transaction { db in
            // Upserts that add: two replicas taking batches of one device on one day add up.
            for entry in statistics {
                let method = SQLValue.text(entry.method.rawValue), dayValue = SQLValue.integer(Int64(day))
                try await db.execute("""
                    INSERT INTO login_statistics (user_id, device_id, method, day, successes, mfa_prompts,
                                                  latency_total_ms, latency_max_ms)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                    ON CONFLICT (user_id, device_id, method, day) DO UPDATE SET
                        successes = login_statistics.successes + excluded.successes,
                        mfa_prompts = login_statistics.mfa_prompts + excluded.mfa_prompts,
                        latency_total_ms = login_statistics.latency_total_ms + excluded.latency_total_ms,
                        latency_max_ms = CASE WHEN excluded.latency_max_ms > login_statistics.latency_max_ms
                                              THEN excluded.latency_max_ms ELSE login_statistics.latency_max_ms END
                    """, key + [method, dayValue, .integer(Int64(entry.successes)),
                                .integer(Int64(entry.mfaPrompts)), .integer(Int64(entry.totalLatencyMilliseconds)),
                                .integer(Int64(entry.maximumLatencyMilliseconds))])
                for (code, count) in entry.failures.sorted(by: { $0.key < $1.key }) where count > 0 {
                    try await db.execute("""
                        INSERT INTO login_statistics_failures (user_id, device_id, method, day, code, count)
                        VALUES ($1, $2, $3, $4, $5, $6)
                        ON CONFLICT (user_id, device_id, method, day, code) DO UPDATE SET
                            count = login_statistics_failures.count + excluded.count
                        """, key + [method, dayValue, .text(code), .integer(Int64(count))])
                }
            }
        }
    }

    public func loginStatistics(userID: String, deviceID: String?) async throws -> [DailyLoginStatistics] {
        let filter = deviceID == nil ? "" : " AND device_id = $2"
        let binds: [SQLValue] = [.text(userID)] + (deviceID.map { [.text($0)] } ?? [])
        let rows = try await engine.read("SELECT * FROM login_statistics WHERE user_id = $1\(filter) ORDER BY day DESC, device_id, method",
                                         binds)
        let failures = try await engine.read("SELECT * FROM login_statistics_failures WHERE user_id = $1\(filter)", binds)
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
        // Bounded statements (at most `purgeBatch` rows each), like the other purges.
        let bound: [SQLValue] = [.integer(Int64(day)), .integer(Int64(Self.purgeBatch))]
        let counts = try await engine.query("""
            DELETE FROM login_statistics WHERE (user_id, device_id, method, day) IN (
                SELECT user_id, device_id, method, day FROM login_statistics WHERE day < $1 LIMIT $2)
            RETURNING day
            """, bound).count
        let failures = try await engine.query("""
            DELETE FROM login_statistics_failures WHERE (user_id, device_id, method, day, code) IN (
                SELECT user_id, device_id, method, day, code FROM login_statistics_failures WHERE day < $1 LIMIT $2)
            RETURNING day
            """, bound).count
        return max(counts, failures)
    }
}
