import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyTestSupport
import Testing

/// The audit trail at any size (storage contract, both engines): on PostgreSQL partitioned by
/// week, made ahead, a default partition for what falls outside, retention by whole weeks; on
/// SQLite one table purged in bounded batches. One test at a time: the lock that makes and drops
/// weeks is one for the database (a deployment's replicas share a schema), so a purge here that
/// holds it while waiting for a read makes another test's purge, in its own schema, skip its drop
/// (other suites' migrations take it too, but for an instant).
@Suite(.serialized) struct AuditRetentionTests {
    static let day: TimeInterval = 86_400

    static func event(_ time: Date, type: AuditEventType = .loginSucceeded, user: String? = nil) -> AuditEvent {
        AuditEvent(id: AuditEvent.newID(at: time), occurredAt: time, type: type, userID: user, actor: .user, clientIP: "192.0.2.1")
    }

    /// The partitions of the trail (PostgreSQL): name, range in seconds, the default's range nil.
    static func partitions(_ store: any LatchkeyStore) async throws -> [(name: String, start: Int?, end: Int?)] {
        let engine = try #require(store as? SQLStore).engine
        return try await engine.read("SELECT name, range_start, range_end FROM audit_event_partitions ORDER BY range_start", [])
            .map { (name: try $0.string("name"), start: try $0.optionalInteger("range_start"), end: try $0.optionalInteger("range_end")) }
    }

    /// The partition an event is stored in (PostgreSQL).
    static func partition(of id: String, _ store: any LatchkeyStore) async throws -> String? {
        let engine = try #require(store as? SQLStore).engine
        return try await engine.read("SELECT tableoid::regclass::text AS name FROM audit_events WHERE id = $1", [.text(id)])
            .first.map { try $0.string("name") }
    }

    @Test(arguments: TestEnvironment.engines)
    func weeksAreMadeAheadAndTheDefaultCatchesTheRest(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date()
            if engine == "postgres" {
                let weeks = try await Self.partitions(store)
                #expect(weeks.contains { $0.name == "audit_events_default" && $0.start == nil && $0.end == nil })
                // The migration made the week under way and four after it.
                let horizon = Int(now.timeIntervalSince1970 + 4 * 7 * Self.day)
                for second in stride(from: Int(now.timeIntervalSince1970), through: horizon, by: 86_400) {
                    #expect(weeks.contains { ($0.start ?? .min) <= second && second < ($0.end ?? .min) }, "\(second) has its week")
                }
                #expect(weeks.allSatisfy { $0.end == nil || ($0.end! - $0.start!) == 604_800 })
            }
            // An event dated past every week made lands in the default and is read like any other.
            let later = Self.event(now.addingTimeInterval(400 * Self.day), user: "u-later")
            let current = Self.event(now, user: "u-later")
            try await store.appendAuditEvents([current, later])
            if engine == "postgres" { #expect(try await Self.partition(of: later.id, store) == "audit_events_default") }
            #expect(try await store.auditEvents(after: nil, since: nil, limit: 10).map(\.id) == [current.id, later.id])
            #expect(try await store.auditEvents(userID: "u-later", limit: 10).map(\.id) == [current.id, later.id])
            let page = try await store.auditEvents(matching: AuditEventFilter(since: now.addingTimeInterval(300 * Self.day)),
                                                   before: nil, scan: 10)
            #expect(page.events.map(\.id) == [later.id])
            // Making its week moves it out of the default; made twice, the week is made once.
            let made = try await store.prepareAuditPartitions(from: later.occurredAt, through: later.occurredAt)
            #expect(made == (engine == "postgres" ? 1 : 0))
            #expect(try await store.prepareAuditPartitions(from: later.occurredAt, through: later.occurredAt) == 0)
            if engine == "postgres" {
                let week = try #require(try await Self.partition(of: later.id, store))
                #expect(week.hasPrefix("audit_events_2") && week != "audit_events_default")
                #expect(try await Self.partitions(store).contains { $0.name == "audit_events_default" })
            }
            #expect(try await store.auditEvents(after: nil, since: nil, limit: 10).map(\.id) == [current.id, later.id])
            // The trail still refuses changes in the moved rows.
            let sql = try #require(store as? SQLStore)
            await #expect(throws: (any Error).self) {
                try await sql.engine.execute("UPDATE audit_events SET reason = 'forged' WHERE id = $1", [.text(later.id)])
            }
        }
    }

    /// Several replicas make the same weeks at once: each week is made once, none fails.
    @Test(arguments: TestEnvironment.engines)
    func replicasMakeWeeksAtOnce(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let from = Date().addingTimeInterval(100 * Self.day), through = from.addingTimeInterval(28 * Self.day)
            let made = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await store.prepareAuditPartitions(from: from, through: through) } }
                return try await group.reduce(0, +)
            }
            #expect(made == (engine == "postgres" ? 5 : 0), "the five weeks from the one holding `from`")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func retentionDropsWeeksThatAreWhollyPast(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date()
            _ = try await store.prepareAuditPartitions(from: now.addingTimeInterval(-70 * Self.day), through: now)
            let cutoff = now.addingTimeInterval(-30 * Self.day)
            let old = [Self.event(now.addingTimeInterval(-60 * Self.day)), Self.event(now.addingTimeInterval(-45 * Self.day))]
            // Older than the retention, in the week that holds the cutoff (a week after it is past).
            let straddling = Self.event(cutoff.addingTimeInterval(-60))
            let kept = [Self.event(now.addingTimeInterval(-10 * Self.day)), Self.event(now.addingTimeInterval(-2 * Self.day))]
            try await store.appendAuditEvents(old + [straddling] + kept)
            var weeksBefore: [(name: String, start: Int?, end: Int?)] = []
            if engine == "postgres" { weeksBefore = try await Self.partitions(store) }
            let purged = try await AuditAdministration.purge(store, retentionDays: 30, now: now)
            let left = try await store.auditEvents(after: nil, since: nil, limit: 100).map(\.id)
            if engine == "postgres" {
                // Whole weeks: the straddling event waits for its week to be past.
                #expect(purged == 2)
                #expect(left == [straddling.id] + kept.map(\.id))
                let weeks = try await Self.partitions(store)
                #expect(weeks.count < weeksBefore.count)
                #expect(weeks.allSatisfy { $0.end == nil || $0.end! > Int(cutoff.timeIntervalSince1970) }, "no week wholly past is left")
                #expect(weeks.contains { ($0.start ?? .max) <= Int(cutoff.timeIntervalSince1970) }, "the week holding the cutoff stays")
                let later = try await AuditAdministration.purge(store, retentionDays: 30, now: now.addingTimeInterval(8 * Self.day))
                #expect(later == 1)
                #expect(try await store.auditEvents(after: nil, since: nil, limit: 100).map(\.id) == kept.map(\.id))
            } else {
                #expect(purged == 3)
                #expect(left == kept.map(\.id))
            }
        }
    }

    /// A purge deletes one by one at most `limit` events per call (one transaction each), the
    /// oldest first; on PostgreSQL those are the default partition's (no week was made for them).
    @Test(arguments: TestEnvironment.engines)
    func rowsArePurgedInBoundedBatches(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date()
            let old = (0..<7).map { Self.event(now.addingTimeInterval(-400 * Self.day + Double($0) * 3600)) }
            let kept = Self.event(now.addingTimeInterval(-2 * Self.day))
            try await store.appendAuditEvents(old + [kept])
            let cutoff = now.addingTimeInterval(-365 * Self.day)
            var batches: [Int] = []
            repeat { batches.append(try await store.purgeAuditEvents(before: cutoff, limit: 3)) } while batches.last == 3
            #expect(batches == [3, 3, 1])
            #expect(try await store.auditEvents(after: nil, since: nil, limit: 100).map(\.id) == [kept.id])
            #expect(try await store.purgeAuditEvents(before: cutoff, limit: 3) == 0)
        }
    }

    /// The admin API's pages across weeks: every event once, newest first, filters and time
    /// ranges as before partitioning.
    @Test(arguments: TestEnvironment.engines)
    func pagesReadAcrossWeeks(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date()
            _ = try await store.prepareAuditPartitions(from: now.addingTimeInterval(-40 * Self.day), through: now)
            var events: [AuditEvent] = []
            for index in 0..<30 {
                let time = now.addingTimeInterval(-Double(index) * 1.3 * Self.day)
                let type: AuditEventType = index % 3 == 0 ? .loginFailed : .loginSucceeded
                events.append(Self.event(time, type: type, user: index % 2 == 0 ? "u-even" : "u-odd"))
            }
            try await store.appendAuditEvents(events)
            let newestFirst = events.map(\.id).sorted(by: >)
            let (since, until) = (now.addingTimeInterval(-20 * Self.day), now.addingTimeInterval(-5 * Self.day))
            func newest(_ keep: (AuditEvent) -> Bool) -> [String] { events.filter(keep).map(\.id).sorted(by: >) }
            let cases: [(AuditEventFilter, [String])] = [
                (AuditEventFilter(), newestFirst),
                (AuditEventFilter(userID: "u-even"), newest { $0.userID == "u-even" }),
                (AuditEventFilter(type: .loginFailed), newest { $0.type == .loginFailed }),
                (AuditEventFilter(since: since, until: until), newest { $0.occurredAt >= since && $0.occurredAt < until }),
            ]
            for (filter, expected) in cases {
                var read: [String] = []
                var cursor: String?
                repeat {
                    let page = try await store.auditEvents(matching: filter, before: cursor, scan: 4)
                    read += page.events.map(\.id)
                    cursor = page.lastRead
                } while cursor != nil
                #expect(read == expected, "\(filter)")
            }
            // The export reads forward from a cursor across weeks too.
            var exported: [String] = []
            while true {
                let page = try await store.auditEvents(after: exported.last, since: nil, limit: 7)
                if page.isEmpty { break }
                exported += page.map(\.id)
            }
            #expect(exported == newestFirst.reversed())
        }
    }

    /// Dropping a week waits for every statement reading the trail, and the trail's writes queue
    /// behind that wait: a purge that meets a long read gives up after a brief wait, so a login's
    /// audit event written meanwhile is held for an instant, not until the read ends (which, past
    /// the request's database bound, would have answered 503).
    @Test(arguments: TestEnvironment.engines.filter { $0 == "postgres" })
    func retentionDoesNotHoldTheTrailsWrites(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date()
            _ = try await store.prepareAuditPartitions(from: now.addingTimeInterval(-70 * Self.day), through: now)
            let old = Self.event(now.addingTimeInterval(-60 * Self.day))
            try await store.appendAuditEvents([old])
            let sql = try #require(store as? SQLStore)
            // An export or a console page reading the whole trail for 3 s.
            let reader = Task {
                try await sql.engine.transaction(.unbounded) { db in
                    _ = try await db.query("SELECT count(*) AS n FROM audit_events", [])
                    _ = try await db.query("SELECT pg_sleep(3)", [])
                }
            }
            // Polls pg_stat_activity every 10 ms until a session matches `condition` (or `tries` ran out).
            func poll(sessionWhere condition: String, tries: Int) async throws {
                let matching = "SELECT count(*) AS n FROM pg_stat_activity WHERE " + condition
                for _ in 0..<tries {
                    if try await sql.engine.read(matching, []).first?.integer("n") != 0 { return }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            // The purge starts once the read is seen sleeping (so it holds its locks).
            try await poll(sessionWhere: "state = 'active' AND query = 'SELECT pg_sleep(3)'", tries: 500)
            let clock = ContinuousClock()
            let purge = Task { () -> Duration in
                let started = clock.now
                _ = try? await AuditAdministration.purge(store, retentionDays: 30, now: now)
                return clock.now - started
            }
            // The write is sent once the drop is seen waiting for its lock (or after 2 s).
            try await poll(sessionWhere: "wait_event_type = 'Lock' AND query LIKE 'DROP TABLE%'", tries: 200)
            let written = try await clock.measure { try await store.appendAuditEvents([Self.event(Date())]) }
            #expect(written < .seconds(1), "the write waited \(written) behind the week's drop")
            // The purge gave up on its lock (or found another server's migration holding it) while
            // the read still ran, and its week stays.
            let purged = await purge.value
            #expect(purged < .seconds(2), "the purge waited \(purged) for the read to end")
            #expect(try await store.auditEvents(after: nil, since: nil, limit: 10).contains { $0.id == old.id })
            try await reader.value
            // Once the read is over, a purge drops the week (tried again while another test's
            // migration in its own schema holds the database's partition lock).
            var dropped = 0
            for _ in 0..<20 {
                dropped = try await AuditAdministration.purge(store, retentionDays: 30, now: now)
                if dropped != 0 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(dropped == 1)
            #expect(try await store.auditEvents(after: nil, since: nil, limit: 10).allSatisfy { $0.id != old.id })
        }
    }
}
