import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Logging

/// `--admin-scale 1000000,10000000`: the admin API at a million users and ten million audit
/// events: exact lookups, the first page of an email prefix search, a user's detail with
/// 1,000 sessions, and an events page for each filter, each over HTTP with an admin key, p99 against
/// the targets (50 ms, 50 ms, 100 ms), then the console's pages for the same (`+AdminScaleConsole`). Users are imported as `latchkey users import` does; the
/// events are written by one SQL statement per million (spread over 30 days, 12 types, 65,536
/// client addresses, every user; on PostgreSQL into their weeks' partitions); the query plans are
/// printed, to show each reads an index in the page's order.
enum AdminScaleBenchmark {
    static let sample = 2000

    static func run(users: Int, events: Int, database: String?, connections: Int, seconds: Double, logger: Logger) async throws {
        print("admin-scale: in-process server, \(users) users, \(events) audit events, \(connections) connections, \(Int(seconds)) s per operation")
        var url: String?
        if let database { url = try await ScaleBenchmark.databaseURL(database, identities: users, logger: logger) }
        let server = try await ScaleBenchmark.start(database: url, logger: logger, admin: true)
        let app = server.application
        try await ScaleBenchmark.importIdentities(users, into: app)
        guard let engine = (app.store as? SQLStore)?.engine else { throw BenchmarkError("not an SQL store") }
        try await shapeUsers(engine: engine)
        // The events span the 30 days before now: on PostgreSQL their weeks are made first, as
        // the server makes them ahead, so they land in weeks and not in the default partition.
        _ = try await app.store.prepareAuditPartitions(from: Date().addingTimeInterval(-31 * 86_400), through: Date())
        try await writeEvents(events, engine: engine)
        let heavy = try await sessions(1000, app: app)
        let key = try await OperatorKeys(store: app.store).create(name: "bench", role: .admin).key
        let driver = LoadDriver(base: server.url, connections: connections)
        // Spread over the whole table (the first by id would sit side by side in every index).
        let ids = try await engine.read("SELECT id FROM users ORDER BY random() LIMIT $1", [.integer(Int64(sample))]).map { try $0.string("id") }
        let indexes = (0..<sample).map { _ in Int.random(in: 0..<users) }
        // `shapeUsers` numbers users 1… in id order: n's phone, external id and (n % 50 == 3) device key.
        let numbers = (0..<sample).map { _ in Int.random(in: 1...users) }
        let keyed = (0..<sample).map { _ in Int.random(in: 0..<(users / 50)) * 50 + 3 }
        let padded: @Sendable (Int, Int) -> String = { number, width in String(repeating: "0", count: max(0, width - String(number).count)) + String(number) }
        let auth = [("Authorization", "Bearer \(key)")]
        let day = 86_400.0, now = Date().timeIntervalSince1970
        let window: @Sendable (Int) -> String = { index in
            let start = Date(timeIntervalSince1970: (now - 14 * day + Double(index % 300) * 3600).rounded(.down))
            return "since=\(stamp(start))&until=\(stamp(start.addingTimeInterval(3600)))"
        }
        var operations: [PageOperation] = [
            ("users?email= (exact)", 50, { .init(path: "/admin/v1/users?email=scale-\(indexes[$0 % sample])%40example.com", headers: auth) }),
            ("users?userId= (exact)", 50, { .init(path: "/admin/v1/users?userId=\(ids[$0 % ids.count])", headers: auth) }),
            ("users?phone= (exact)", 50, { .init(path: "/admin/v1/users?phone=%2B1555\(padded(numbers[$0 % sample], 7))", headers: auth) }),
            ("users?externalId= (exact)", 50, { .init(path: "/admin/v1/users?externalId=ext-\(numbers[$0 % sample])", headers: auth) }),
            ("users?thumbprint= (exact)", 50, {
                .init(path: "/admin/v1/users?thumbprint=bench\(padded(keyed[$0 % sample], 38))", headers: auth)
            }),
            ("users?emailPrefix= (first page)", 50, {
                .init(path: "/admin/v1/users?emailPrefix=scale-\(indexes[$0 % sample] % 1000)", headers: auth)
            }),
            ("users/{id} (1,000 sessions)", 50, { _ in .init(path: "/admin/v1/users/\(heavy)", headers: auth) }),
            ("users?state=locked (0.5 %)", 50, { _ in .init(path: "/admin/v1/users?state=locked", headers: auth) }),
            ("users?state=deactivated (0.5 %)", 50, { _ in .init(path: "/admin/v1/users?state=deactivated", headers: auth) }),
            ("users?state=unverified (2 %)", 50, { _ in .init(path: "/admin/v1/users?state=unverified", headers: auth) }),
            ("users?state=active", 50, { _ in .init(path: "/admin/v1/users?state=active", headers: auth) }),
            ("users (newest first)", 50, { _ in .init(path: "/admin/v1/users", headers: auth) }),
            ("events (no filter)", 100, { _ in .init(path: "/admin/v1/events", headers: auth) }),
            ("events?userId=", 100, { .init(path: "/admin/v1/events?userId=\(ids[$0 % ids.count])", headers: auth) }),
            ("events?type=login.succeeded", 100, { _ in .init(path: "/admin/v1/events?type=login.succeeded", headers: auth) }),
            ("events?type=lockout.device (0.1 %)", 100, { _ in .init(path: "/admin/v1/events?type=lockout.device", headers: auth) }),
            ("events?outcome=failure", 100, { _ in .init(path: "/admin/v1/events?outcome=failure", headers: auth) }),
            ("events?clientIp=", 100, { .init(path: "/admin/v1/events?clientIp=10.0.\($0 % 256).\(($0 / 256) % 256)", headers: auth) }),
            ("events?since=&until= (an hour, 2 weeks ago)", 100, { .init(path: "/admin/v1/events?" + window($0), headers: auth) }),
            ("events?type=login.failed&outcome=failure", 100, {
                _ in .init(path: "/admin/v1/events?type=login.failed&outcome=failure", headers: auth)
            }),
        ]
        operations += try await consoleOperations(app: app, ids: ids, indexes: indexes, heavy: heavy)
        try await plans(engine: engine, user: ids[0], heavy: heavy)
        var failed = false
        for (name, target, request) in operations {
            let result = try await driver.measure(name, seconds: seconds, request: request)
            result.print(baseline: nil)
            let p99 = result.percentile(0.99)
            if p99 > target || result.errors > 0 { failed = true }
            print(String(format: "  p99 %.1f ms (target ≤ %.0f ms)%@", p99, target, p99 > target ? "  MISSED" : ""))
        }
        // The console's dashboard (no target in the issue): its first view counts the hours from
        // the trail and keeps them, later views read them back and count the hour under way.
        let hour = (now / 3600).rounded(.down) * 3600
        // As the console asks: 24 hours from the hour, 7 days from the day. The hour under way and
        // the one before are counted live; here they hold the import's
        // million events, so the views are timed again with the clock two hours on (those hours
        // then kept); the hours kept are removed after.
        for (label, since, bucket) in [("24 hours", hour - 23 * 3600, 3600), ("7 days", (now / day).rounded(.down) * day - 6 * day, 86_400)] {
            try await engine.execute("DELETE FROM dashboard_hours")  // each period's first view is a first view
            for (clock, ahead) in [("now", 0.0), ("two hours on", 7200.0)] {
                var times: [Double] = []
                for _ in 0..<4 {
                    let start = Date()
                    _ = try await app.store.dashboardCounts(since: Date(timeIntervalSince1970: since + ahead), bucket: bucket,
                                                            now: Date().addingTimeInterval(ahead))
                    times.append(Date().timeIntervalSince(start) * 1000)
                }
                print(String(format: "dashboard counts, %@, %@: first view %.0f ms, then %.1f ms (median of 3)", label, clock, times[0],
                             times.dropFirst().sorted()[1]))
            }
        }
        try await engine.execute("DELETE FROM dashboard_hours")
        print(failed ? "admin-scale: a target was missed" : "admin-scale: every target met")
        try await driver.shutdown()
        try await server.stop()
    }

    static func stamp(_ date: Date) -> String { date.formatted(.iso8601).replacingOccurrences(of: ":", with: "%3A") }

    /// Adds audit events up to `count`, a million per statement.
    static func writeEvents(_ count: Int, engine: any SQLEngine) async throws {
        let existing = try await engine.read("SELECT COUNT(*) AS n FROM audit_events", []).first.map { try $0.integer("n") } ?? 0
        guard existing < count else { print("\(existing) audit events were there"); return }
        let started = Date(), postgres = engine.kind == .postgres
        let users = try await engine.read("SELECT COUNT(*) AS n FROM users", []).first.map { try $0.integer("n") } ?? 1
        try await numberUsers(engine: engine)
        let end = Int64(Date().timeIntervalSince1970 * 1_000_000), span = Int64(30 * 86_400) * 1_000_000
        let step = span / Int64(count)
        for chunk in stride(from: existing, to: count, by: 1_000_000) {
            let last = min(count, chunk + 1_000_000)
            let micros = "(\(end - span) + i * \(step))"
            let type = """
                CASE WHEN i % 1000 = 999 THEN 'lockout.device' WHEN i % 1000 = 998 THEN 'lockout.wallet'
                WHEN i % 100 < 50 THEN 'login.succeeded' WHEN i % 100 < 70 THEN 'login.failed' WHEN i % 100 < 78 THEN 'mfa.prompted'
                WHEN i % 100 < 84 THEN 'session.ended' WHEN i % 100 < 88 THEN 'device.linked' WHEN i % 100 < 92 THEN 'operator.command'
                WHEN i % 100 < 95 THEN 'user.registered' WHEN i % 100 < 97 THEN 'password.changed' WHEN i % 100 < 98 THEN 'reset.requested'
                ELSE 'email.changed' END
                """
            let outcome = "CASE WHEN i % 100 >= 50 AND i % 100 < 70 THEN 'failure' WHEN i % 1000 >= 998 THEN 'failure' ELSE 'success' END"
            let id = postgres ? "lpad(\(micros)::text, 16, '0') || '-' || lpad(to_hex(i), 8, '0')" : "printf('%016d-%08x', \(micros), i)"
            let address = postgres ? "'10.0.' || ((i / 256) % 256) || '.' || (i % 256)" : "'10.0.' || ((i / 256) % 256) || '.' || (i % 256)"
            // bigint: `i * step` passes int4 at ten million events.
            let series = postgres ? "generate_series(\(chunk + 1)::bigint, \(last)::bigint) AS s(i)"
                : "(WITH RECURSIVE s(i) AS (SELECT \(chunk + 1) UNION ALL SELECT i + 1 FROM s WHERE i < \(last)) SELECT i FROM s) AS s"
            try await engine.transaction { db in
                try await db.execute("""
                    INSERT INTO audit_events (id, occurred_at, type, outcome, user_id, actor, reason, device_id, client_ip, details)
                    SELECT \(id), \(micros) / 1000000, \(type), \(outcome), u.id, 'user', NULL, NULL, \(address), '{"method":"password"}'
                    FROM \(series) JOIN bench_users u ON u.n = (i * 7919) % \(users) + 1
                    """)
            }
            print("audit events: \(last) written (\(Int(Date().timeIntervalSince(started))) s)")
        }
        try await engine.execute("DROP TABLE bench_users")
        try await ScaleBenchmark.settle(engine: engine)
    }

    /// `bench_users (n, id)`: the users numbered 1… in id order, for statements that spread rows over them.
    static func numberUsers(engine: any SQLEngine) async throws {
        try await engine.execute("DROP TABLE IF EXISTS bench_users")
        try await engine.execute("CREATE TABLE bench_users AS SELECT row_number() OVER (ORDER BY id) AS n, id FROM users")
        try await engine.execute("CREATE UNIQUE INDEX bench_users_n ON bench_users (n)")
        try await engine.execute("CREATE UNIQUE INDEX bench_users_id ON bench_users (id)")
    }

    /// Gives the imported users what support looks them up by and the states it filters on: a
    /// phone number and an external id each, a linked device key for one in fifty, the operator
    /// lock for one in 200, a deactivation for another one in 200, an unverified address for one
    /// in 50. Once: a kept database that has them is left as it is.
    static func shapeUsers(engine: any SQLEngine) async throws {
        let shaped = try await engine.read("SELECT COUNT(*) AS n FROM users WHERE external_id LIKE 'ext-%'", []).first
            .map { try $0.integer("n") } ?? 0
        guard shaped == 0 else { print("users were shaped"); return }
        let started = Date(), postgres = engine.kind == .postgres
        try await numberUsers(engine: engine)
        let padded: @Sendable (Int) -> String = { width in postgres ? "lpad(b.n::text, \(width), '0')" : "printf('%0\(width)d', b.n)" }
        try await engine.transaction { db in
            try await db.execute("""
                UPDATE users SET phone = '+1555' || \(padded(7)), phone_normalized = '+1555' || \(padded(7)),
                    external_id = 'ext-' || b.n, locked = CASE WHEN b.n % 200 = 0 THEN 1 ELSE 0 END,
                    status = CASE WHEN b.n % 200 = 1 THEN 'deactivated' ELSE 'active' END,
                    email_verified = CASE WHEN b.n % 50 = 2 THEN 0 ELSE 1 END
                FROM bench_users b WHERE b.id = users.id
                """)
            try await db.execute("""
                INSERT INTO devices (user_id, device_id, device_type, status, failed_attempts, linked_at, label, app_version)
                SELECT b.id, 'jkt:bench' || \(padded(38)), 'iPhone', 'active', 0, \(Int(Date().timeIntervalSince1970)), 'Phone', '1.0'
                FROM bench_users b WHERE b.n % 50 = 3
                """)
        }
        try await engine.execute("DROP TABLE bench_users")
        print("users shaped (phones, external ids, devices, states) in \(Int(Date().timeIntervalSince(started))) s")
    }

    /// A user with `count` live sessions (the one whose detail is measured); answers its id.
    static func sessions(_ count: Int, app: LatchkeyApplication) async throws -> String {
        guard let user = try await app.store.user(issuer: app.configuration.issuer.id, emailNormalized: "scale-0@example.com") else {
            throw BenchmarkError("scale-0 was not imported")
        }
        let now = Date()
        // A kept database's sessions were seen when it was filled: seen again now, so the detail
        // lists them (the idle timeout would leave out every one after half an hour).
        guard let engine = (app.store as? SQLStore)?.engine else { throw BenchmarkError("not an SQL store") }
        try await engine.execute("UPDATE sessions SET last_seen_at = $2 - (created_at % 100) WHERE user_id = $1",
                                 [.text(user.id), now.epochSeconds])
        let live = try await app.store.liveSessions(userID: user.id, now: now, idleBefore: .distantPast, limit: count).count
        for index in live..<count {
            try await app.store.createSession(SessionRecord(
                digest: SecureRandom.digest("bench-session-\(index)-\(UUID())"), userID: user.id, deviceID: "bench-\(index % 20)",
                createdAt: now.addingTimeInterval(-Double(index)), lastSeenAt: now.addingTimeInterval(-Double(index) / 10),
                expiresAt: now.addingTimeInterval(86_400 * 30)))
        }
        return user.id
    }

    /// The plans of the pages' statements, as the store runs them (the events') or as it writes
    /// them (the users'): each an index read in the page's order, no sort of the matches, and on
    /// PostgreSQL (`EXPLAIN ANALYZE`) the rows each node read — a page's size plus one at most.
    static func plans(engine: any SQLEngine, user: String, heavy: String) async throws {
        let explain = engine.kind == .postgres ? "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)" : "EXPLAIN QUERY PLAN"
        let hourAgo = Date().addingTimeInterval(-14 * 86_400)
        let filters: [(String, AuditEventFilter)] = [
            ("events", AuditEventFilter()),
            ("events by user", AuditEventFilter(userID: user)),
            ("events by type (rare)", AuditEventFilter(type: .deviceLocked)),
            ("events by outcome", AuditEventFilter(outcome: .failure)),
            ("events by address", AuditEventFilter(clientIP: "10.0.1.2")),
            ("events in an hour", AuditEventFilter(since: hourAgo, until: hourAgo.addingTimeInterval(3600))),
            ("events by type and outcome (never together)", AuditEventFilter(type: .loginSucceeded, outcome: .failure)),
            ("events by address, type, hour", AuditEventFilter(type: .loginFailed, clientIP: "10.0.1.2", since: hourAgo,
                                                               until: hourAgo.addingTimeInterval(3600))),
            ("a user's latest events (its detail: operators' reads left out)", AuditEventFilter(userID: heavy, excludingReads: true)),
        ]
        var queries: [(String, String, [SQLValue])] = filters.map { name, filter in
            let (sql, binds) = SQLStore.eventsStatement(filter, before: nil, scan: 51, engine: engine.kind)
            return (name, sql, binds)
        }
        let collate = engine.kind == .postgres ? " COLLATE \"C\"" : ""
        let position = SQLStore.userPosition(engine.kind)
        queries += [
            ("users", "SELECT * FROM users WHERE issuer = 'default' ORDER BY \(position) DESC LIMIT 51", []),
            ("users locked", "SELECT * FROM users WHERE issuer = 'default' AND locked = 1 ORDER BY \(position) DESC LIMIT 51", []),
            ("users unverified", "SELECT * FROM users WHERE issuer = 'default' AND email_verified = 0 ORDER BY \(position) DESC LIMIT 51", []),
            ("users by external id", "SELECT * FROM users WHERE issuer = 'default' AND external_id = 'ext-77' ORDER BY created_at DESC, id DESC LIMIT 51", []),
            ("users by email prefix", "SELECT * FROM users WHERE issuer = 'default' AND email_normalized\(collate) >= 'scale-12' "
                + "AND email_normalized\(collate) < 'scale-12\u{10FFFF}' ORDER BY email_normalized\(collate) LIMIT 51", []),
            ("sessions of a user", "SELECT * FROM sessions WHERE user_id = '\(heavy)' AND revoked_at IS NULL AND expires_at > $1 "
                + "AND last_seen_at > $2 ORDER BY last_seen_at DESC, digest DESC LIMIT 101", [Date().epochSeconds, Date().addingTimeInterval(-1800).epochSeconds]),
        ]
        for (name, sql, binds) in queries {
            let rows = try await engine.read("\(explain) \(sql)", binds)
            let lines = rows.map { row in row.values.compactMap { value -> String? in
                if case .text(let text) = value { return text }
                return nil
            }.joined(separator: " ") }
            print("plan, \(name): " + lines.joined(separator: " | "))
        }
    }
}
