import Foundation
import LatchkeyDomain

extension SQLStore {
    /// Rows older than this are deleted now and then (no window is longer).
    package static let counterRetention: TimeInterval = 8 * 86_400

    public func hit(_ key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Date? {
        try await sweepSometimes(now: now)
        // One statement: a new row, a row whose window has passed starting again, or a row with room
        // counting one more; a full row is left as it is and nothing is returned.
        let counted = try await engine.query("""
            INSERT INTO window_counters (key, window_start, count) VALUES ($1, $2, 1)
            ON CONFLICT (key) DO UPDATE SET
                count = CASE WHEN window_counters.window_start <= $3 THEN 1 ELSE window_counters.count + 1 END,
                window_start = CASE WHEN window_counters.window_start <= $3 THEN $2 ELSE window_counters.window_start END
            WHERE window_counters.window_start <= $3 OR window_counters.count < $4
            RETURNING count
            """, [.text(key), now.epochSeconds, now.addingTimeInterval(-window).epochSeconds, .integer(Int64(limit))])
        if !counted.isEmpty { return nil }
        return try await blockedUntil(key, limit: limit, window: window, now: now) ?? now
    }

    public func add(_ key: String, count: Int, window: TimeInterval, now: Date) async throws -> (count: Int, windowStart: Date) {
        try await sweepSometimes(now: now)
        let row = try await engine.query("""
            INSERT INTO window_counters (key, window_start, count) VALUES ($1, $2, $4)
            ON CONFLICT (key) DO UPDATE SET
                count = CASE WHEN window_counters.window_start <= $3 THEN $4 ELSE window_counters.count + $4 END,
                window_start = CASE WHEN window_counters.window_start <= $3 THEN $2 ELSE window_counters.window_start END
            RETURNING count, window_start
            """, [.text(key), now.epochSeconds, now.addingTimeInterval(-window).epochSeconds, .integer(Int64(count))])
        guard let first = row.first else { throw StoreError.undecodableRow(column: "count", reason: "no row returned") }
        return (try first.integer("count"), try first.date("window_start"))
    }

    public func blockedUntil(_ key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Date? {
        guard let row = try await engine.read("SELECT window_start, count FROM window_counters WHERE key = $1",
                                              [.text(key)]).first else { return nil }
        let until = try row.date("window_start").addingTimeInterval(window)
        return try row.integer("count") >= limit && until > now ? until : nil
    }

    public func release(_ key: String) async throws {
        try await engine.execute("UPDATE window_counters SET count = count - 1 WHERE key = $1 AND count > 0", [.text(key)])
    }

    /// One write in 64 also drops rows whose windows ended long ago.
    private func sweepSometimes(now: Date) async throws {
        if UInt8.random(in: 0...63) == 0 {
            try await engine.execute("DELETE FROM window_counters WHERE window_start < $1",
                                     [now.addingTimeInterval(-Self.counterRetention).epochSeconds])
        }
    }
}
