import Foundation
import LatchkeyDomain

/// The console dashboard's counts (`ConsoleStore.dashboardCounts`), kept per hour once the hour
/// is over: counting a week of a busy trail on every view read millions of events (2 s at ten
/// million events on SQLite); an hour counted once is read back as its few rows.
extension SQLStore {
    /// An hour is final this long after it ended: an event carries the time its change began and
    /// commits with it — an import's batch stamps its users before it hashes their secrets and
    /// writes them after the batch before it, minutes at most —, well within this.
    static let dashboardSettleSeconds = 3600

    /// The most hours one read counts: a first view of a week reads a day's share of the trail at
    /// a time, each kept as it is counted, so no read runs into the database's timeout for long
    /// and a view that does leaves the hours before it counted.
    static let dashboardHoursPerRead = 6

    /// What an hour is counted into, by series; the hour's row with the empty series says it was counted.
    static let dashboardMarker = ""

    public func dashboardCounts(since: Date, bucket: Int, now: Date) async throws -> [DashboardBucket] {
        let start = Int(since.timeIntervalSince1970.rounded(.down)) / 3600 * 3600
        let settled = max(start, (Int(now.timeIntervalSince1970.rounded(.down)) - Self.dashboardSettleSeconds) / 3600 * 3600)
        var hours: [Int: [String: Int]] = [:]
        var counted = Set<Int>()
        for row in try await engine.read("SELECT hour, series, count FROM dashboard_hours WHERE hour >= $1 AND hour < $2",
                                          [.integer(Int64(start)), .integer(Int64(settled))]) {
            let hour = try row.integer("hour"), series = try row.string("series")
            counted.insert(hour)
            if series != Self.dashboardMarker { hours[hour, default: [:]][series] = try row.integer("count") }
        }
        // The settled hours not counted yet (the newest, or a week on a first view): counted from
        // the trail `dashboardHoursPerRead` at a time and kept, with a marker for an hour without
        // events. Replicas that count an hour at once write the same rows; the first stays.
        var next = stride(from: start, to: settled, by: 3600).first { !counted.contains($0) }
        while let first = next {
            let end = min(settled, first + Self.dashboardHoursPerRead * 3600)
            next = stride(from: end, to: settled, by: 3600).first { !counted.contains($0) }
            let fresh = try await hourlyCounts(from: first, to: end)
            var rows: [[SQLValue]] = []
            for hour in stride(from: first, to: end, by: 3600) where !counted.contains(hour) {
                rows.append([.integer(Int64(hour)), .text(Self.dashboardMarker), .integer(0)])
                for (series, count) in fresh[hour] ?? [:] {
                    rows.append([.integer(Int64(hour)), .text(series), .integer(Int64(count))])
                    hours[hour, default: [:]][series] = count
                }
            }
            try await engine.transaction { [rows] db in
                try await db.insert(into: "dashboard_hours", columns: ["hour", "series", "count"], rows: rows,
                                    suffix: "ON CONFLICT (hour, series) DO NOTHING")
            }
        }
        // The hours not settled: counted as they are.
        for (hour, counts) in try await hourlyCounts(from: settled, to: nil) {
            hours[hour, default: [:]].merge(counts) { $0 + $1 }
        }
        // The admission gate's hourly rows (`ShedRecorder`): a row per hour, few by construction.
        let prefix = ShedRecorder.keyPrefix
        for row in try await engine.read("SELECT key, count FROM window_counters WHERE key LIKE $1", [.text(prefix + "%")]) {
            let key = try row.string("key")
            guard key.hasPrefix(prefix), let hour = Int(key.dropFirst(prefix.count)), hour >= start else { continue }
            hours[hour / 3600 * 3600, default: [:]]["shed", default: 0] += try row.integer("count")
        }
        var buckets: [Int: [String: Int]] = [:]
        for (hour, counts) in hours where !counts.isEmpty {
            buckets[hour / bucket * bucket, default: [:]].merge(counts) { $0 + $1 }
        }
        return buckets.keys.sorted().map { DashboardBucket(start: Date(timeIntervalSince1970: TimeInterval($0)), counts: buckets[$0]!) }
    }

    /// The counts of each hour from `from` to `to` (or on), by series, from the audit trail and the
    /// courier. The time index drives the read (`type || ''` keeps the type's index out of it: the
    /// six types are most of the trail).
    private func hourlyCounts(from: Int, to: Int?) async throws -> [Int: [String: Int]] {
        let binds: [SQLValue] = [.integer(Int64(from))] + (to.map { [.integer(Int64($0))] } ?? [])
        // `column` from the first bound value, to the second when there is one.
        func range(_ column: String) -> String { "\(column) >= $1" + (to == nil ? "" : " AND \(column) < $2") }
        var hours: [Int: [String: Int]] = [:]
        for row in try await engine.read("""
            SELECT (occurred_at / 3600) * 3600 AS hour, type, outcome,
                CASE WHEN type = 'user.registered' AND details LIKE '%"method":"phone"%' THEN 1 ELSE 0 END AS phone, COUNT(*) AS n
            FROM audit_events
            WHERE \(range("occurred_at")) AND (type || '') IN ('login.succeeded', 'login.failed', 'lockout.wallet', 'lockout.device',
                'lockout.unlinked', 'user.registered')
            GROUP BY 1, 2, 3, 4
            """, binds) {
            let series = switch try row.string("type") {
            case "login.succeeded": "logins_succeeded"
            case "login.failed": "logins_failed"
            case "user.registered": try row.integer("phone") == 1 ? "phone_signups" : "registrations"
            default: "lockouts"
            }
            hours[try row.integer("hour"), default: [:]][series, default: 0] += try row.integer("n")
        }
        for row in try await engine.read("""
            SELECT (delivered_at / 3600) * 3600 AS hour, COUNT(*) AS n FROM outbox
            WHERE \(range("delivered_at")) AND channel = 'sms' GROUP BY 1
            """, binds) {
            hours[try row.integer("hour"), default: [:]]["sms_sent", default: 0] += try row.integer("n")
        }
        return hours
    }
}
