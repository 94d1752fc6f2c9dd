import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyTestSupport
import Testing

/// A call bounded by the database timeout is answered at the bound whatever the database does,
/// and an answer of `unavailable` means the transaction did not commit: PostgreSQL's own
/// `statement_timeout` is not relied on to end the caller's wait (a statement it does not end —
/// behind a pooler's queue, or a session that lifted the setting — would hold the request), and a
/// connection the server ends (a shutdown, `pg_terminate_backend`) is `unavailable`, not an error
/// of the request.
@Suite struct PostgresBoundTests {
    static let postgres = TestEnvironment.engines.filter { $0 == "postgres" }

    /// Statements that each end under the bound but together run past it: the caller is answered
    /// `unavailable`, and what the transaction wrote after the bound is not committed.
    @Test(arguments: postgres)
    func aTransactionPastItsBoundDoesNotCommit(engine _: String) async throws {
        try await withEngine(bound: .seconds(2)) { engine in
            try await engine.execute("CREATE TABLE marks (id BIGINT)")
            await #expect(throws: SQLEngineError.unavailable) {
                try await engine.transaction { db in
                    _ = try await db.query("SELECT pg_sleep(1.2)", [])
                    _ = try await db.query("SELECT pg_sleep(1.2)", [])
                    try await db.execute("INSERT INTO marks (id) VALUES (1)")
                }
            }
            // Past the moment the transaction would have reached its commit.
            try await Task.sleep(for: .seconds(2))
            #expect(try await engine.query("SELECT count(*) AS n FROM marks", []) == [["n": .integer(0)]])
        }
    }

    /// A commit sent before the bound and answered after it (a deferred trigger that takes 1.5 s
    /// at the commit): the caller waits for the commit's answer and learns that it committed,
    /// rather than being told `unavailable` for a transaction that committed.
    @Test(arguments: postgres)
    func aCommitUnderWayAtTheBoundIsWaitedFor(engine _: String) async throws {
        try await withEngine(bound: .seconds(2)) { engine in
            try await engine.execute("CREATE TABLE marks (id BIGINT)")
            try await engine.execute("""
                CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN PERFORM pg_sleep(1.5); RETURN NULL; END $$
                """)
            try await engine.execute("""
                CREATE CONSTRAINT TRIGGER marks_slow_commit AFTER INSERT ON marks
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()
                """)
            let answer = try await engine.transaction { db in
                _ = try await db.query("SELECT pg_sleep(1)", [])
                try await db.execute("INSERT INTO marks (id) VALUES (1)")
                return "committed"
            }
            #expect(answer == "committed")
            #expect(try await engine.query("SELECT count(*) AS n FROM marks", []) == [["n": .integer(1)]])
        }
    }

    /// A statement the server does not end at the bound (the transaction lifted its own
    /// `statement_timeout`, as a pooler's queue would hold it): the caller is answered at the
    /// bound, not when the statement ends.
    @Test(arguments: postgres)
    func aStatementTheServerDoesNotEndIsAnsweredAtTheBound(engine _: String) async throws {
        try await withEngine(bound: .seconds(2)) { engine in
            let started = ContinuousClock.now
            await #expect(throws: SQLEngineError.unavailable) {
                try await engine.transaction { db in
                    try await db.execute("SET LOCAL statement_timeout = 0")
                    _ = try await db.query("SELECT pg_sleep(8)", [])
                }
            }
            let waited = ContinuousClock.now - started
            #expect(waited < .seconds(6), "answered at the 2 s bound, not when the 8 s statement ended: \(waited)")
        }
    }

    /// The server ends the connection under a statement, in a transaction and outside one, five
    /// times each: the call is `unavailable` (a 503 with Retry-After), never the server's error
    /// passed on (a 500), and the engine serves again on new connections.
    @Test(arguments: postgres)
    func aConnectionEndedByTheServerIsUnavailable(engine _: String) async throws {
        try await withEngine(bound: .seconds(20)) { engine in
            let killer = try PostgresEngine(url: try await TestEnvironment.freshDatabase("postgres"), logger: TestEnvironment.logger,
                                            timeout: .seconds(30))
            let pool = Task { await killer.run() }
            defer { pool.cancel() }
            for round in 1...5 {
                for inTransaction in [true, false] {
                    // A connection the last round's kill left in the pool may fail the next call at
                    // once (unavailable too); the engine is first seen serving.
                    #expect(try await Self.serving(engine), "the engine serves again, round \(round)")
                    let sleep = "SELECT pg_sleep(\(inTransaction ? 10 + round : 20 + round))"
                    let terminating = Task { try await Self.terminate(sleep, using: killer) }
                    await #expect(throws: SQLEngineError.unavailable, "round \(round), in a transaction: \(inTransaction)") {
                        if inTransaction {
                            try await engine.transaction { db in _ = try await db.query(sleep, []) }
                        } else {
                            _ = try await engine.query(sleep, [])
                        }
                    }
                    #expect(try await terminating.value, "\(sleep) ran and was ended")
                }
            }
            #expect(try await Self.serving(engine), "the engine serves again")
        }
    }

    /// Whether the engine answers a statement within five seconds of trying.
    static func serving(_ engine: PostgresEngine) async throws -> Bool {
        for _ in 1...50 {
            if (try? await engine.query("SELECT 1 AS one", [])) == [["one": .integer(1)]] { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Ends the server process running `statement` once it runs (PostgreSQL answers the client
    /// FATAL 57P01 and closes the connection); false if it never ran within ten seconds.
    static func terminate(_ statement: String, using engine: PostgresEngine) async throws -> Bool {
        for _ in 1...200 {
            let ended = try await engine.query("""
                SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
                WHERE query = $1 AND state = 'active' AND pid <> pg_backend_pid()
                """, [.text(statement)])
            if !ended.isEmpty { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Runs `body` with an engine of its own on a fresh schema, bounded at `bound`.
    private func withEngine(bound: Duration, _ body: (PostgresEngine) async throws -> Void) async throws {
        let url = try await TestEnvironment.freshDatabase("postgres")
        let engine = try PostgresEngine(url: url, logger: TestEnvironment.logger, timeout: bound)
        let pool = Task { await engine.run() }
        defer { pool.cancel() }
        // Connecting counts against the bound; under a full suite's load the first try may miss it.
        for attempt in 1...10 {
            do {
                _ = try await engine.query("SELECT 1 AS one", [])
                break
            } catch SQLEngineError.unavailable where attempt < 10 {}
        }
        try await body(engine)
    }
}
