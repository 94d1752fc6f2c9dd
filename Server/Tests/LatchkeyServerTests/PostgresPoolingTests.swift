import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyTestSupport
import Logging
import Synchronization
import Testing

/// The database timeout holds without session state, as behind a pooler in transaction mode
/// (PgBouncer), where a transaction may run on a server connection whose `statement_timeout`
/// another client set to 0. Here the pool's only connection has its session setting reset to 0,
/// and another connection holds a table locked, so a statement reading it waits past the bound.
@Suite struct PostgresPoolingTests {
    /// Whether the lock was let go (at the test's end, or after 20 s if the call under test waited for it).
    final class Released: Sendable {
        let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
    }

    @Test(arguments: TestEnvironment.engines.filter { $0 == "postgres" })
    func aTransactionIsBoundedByTheServerWhateverTheSessionSays(engine _: String) async throws {
        try await withLockedTable { (engine: PostgresEngine, released: Released) async throws in
            await #expect(throws: SQLEngineError.unavailable) {
                try await engine.transaction { db in try await db.query("SELECT count(*) AS n FROM probe", []) }
            }
            #expect(!released.isSet, "answered at the bound, not when the lock was let go")
            // PostgreSQL ended the waiting statement: the pool's one connection answers while the lock is still held.
            #expect(try await engine.query("SELECT 1 AS one", []) == [["one": .integer(1)]])
            #expect(!released.isSet)
        }
    }

    @Test(arguments: TestEnvironment.engines.filter { $0 == "postgres" })
    func aStatementOutsideATransactionIsAnsweredAtTheBound(engine _: String) async throws {
        try await withLockedTable { (engine: PostgresEngine, released: Released) async throws in
            await #expect(throws: SQLEngineError.unavailable) { try await engine.query("SELECT count(*) AS n FROM probe", []) }
            #expect(!released.isSet, "answered at the bound, not when the lock was let go")
        }
    }

    @Test func thePoolSizeIsAWholeNumberFromOneToAThousand() throws {
        let base = "postgres://latchkey@127.0.0.1:5432/latchkey?sslmode=disable"
        #expect(try PostgresEngine(url: base, logger: TestEnvironment.logger).maximumConnections == 20)
        #expect(try PostgresEngine(url: base + "&pool_max_conns=40", logger: TestEnvironment.logger).maximumConnections == 40)
        for wrong in ["0", "1001", "many", ""] {
            #expect(throws: SQLEngineError.invalidURL("pool_max_conns must be a whole number from 1 to 1000")) {
                _ = try PostgresEngine(url: base + "&pool_max_conns=" + wrong, logger: TestEnvironment.logger)
            }
        }
    }

    /// Runs `body` with an engine of one connection bounded at 3 s, whose session
    /// `statement_timeout` is 0, while another connection holds the table `probe` locked.
    private func withLockedTable(_ body: (PostgresEngine, Released) async throws -> Void) async throws {
        let url = try await TestEnvironment.freshDatabase("postgres")
        let holder = try PostgresEngine(url: url, logger: TestEnvironment.logger, timeout: .seconds(30))
        let engine = try PostgresEngine(url: url + "&pool_max_conns=1", logger: TestEnvironment.logger, timeout: .seconds(3))
        let pools = [Task { await holder.run() }, Task { await engine.run() }]
        defer { for pool in pools { pool.cancel() } }
        try await holder.execute("CREATE TABLE probe (id BIGINT)")
        // Connecting counts against the bound, and with every suite running at once the first
        // connection can take longer than it: the setup tries again until the connection is made.
        for attempt in 1...10 {
            do {
                try await engine.execute("SET statement_timeout = 0")
                break
            } catch SQLEngineError.unavailable where attempt < 10 {}
        }
        #expect(try await engine.query("SHOW statement_timeout", []) == [["statement_timeout": .text("0")]])

        let released = Released()
        let locked = AsyncStream<Void>.makeStream()
        let holding = Task {
            try await holder.transaction { db in
                try await db.execute("LOCK TABLE probe IN ACCESS EXCLUSIVE MODE")
                locked.continuation.yield()
                try? await Task.sleep(for: .seconds(20))
                released.value.withLock { $0 = true }
            }
        }
        var signals = locked.stream.makeAsyncIterator()
        _ = await signals.next()
        do {
            try await body(engine, released)
        } catch {
            holding.cancel()
            throw error
        }
        holding.cancel()
        _ = await holding.result
        #expect(try await engine.query("SELECT count(*) AS n FROM probe", []) == [["n": .integer(0)]], "served once the lock is gone")
    }
}
