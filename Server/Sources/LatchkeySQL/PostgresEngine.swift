import Foundation
import LatchkeyDomain
import Logging
import PostgresNIO
import Synchronization
import Tracing

/// The engine for deployments with several replicas: PostgreSQL through a connection pool.
public final class PostgresEngine: SQLEngine {
    public let kind = DatabaseEngine.postgres
    private let client: PostgresClient
    private let logger: Logger

    /// How long one call (a connection from the pool and the statement, or a whole transaction)
    /// may take before it fails with `unavailable`: during an outage requests fail fast instead of
    /// waiting for the pool's reconnection attempts.
    package let timeout: Duration
    /// The most connections the pool opens (`?pool_max_conns=`, 20 unless given): what a
    /// connection pooler in front of the database (PgBouncer) is sized from, per replica.
    public let maximumConnections: Int
    /// Statements outside a transaction, run as children of `run` so that one still running when its
    /// caller was answered at the bound (`abandonable`) belongs to the engine's lifetime.
    private let statements = AsyncStream<@Sendable () async -> Void>.makeStream()

    /// Connects to a `postgres://user:password@host:port/database` URL. Its query may say
    /// `sslmode=disable` (TLS off), `pool_max_conns=N` (the pool's size, 1 to 1000) and
    /// `search_path=SCHEMA` (a schema, sent when the connection starts: for direct connections only,
    /// as the tests use it; a pooler such as PgBouncer refuses or drops it).
    /// - Throws: `SQLEngineError.invalidURL` for another form or a `pool_max_conns` outside 1…1000.
    public init(url: String, logger: Logger, timeout: Duration = .seconds(1)) throws {
        self.timeout = timeout
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
              let host = components.host, let user = components.user
        else { throw SQLEngineError.invalidURL("Expected postgres://user[:password]@host[:port]/database") }
        let query = components.queryItems ?? []
        let sslMode = query.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS = sslMode == "disable" ? .disable : .prefer(.makeClientConfiguration())
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls)
        if let size = query.first(where: { $0.name == "pool_max_conns" }) {
            guard let value = size.value.flatMap(Int.init), (1...1000).contains(value) else {
                throw SQLEngineError.invalidURL("pool_max_conns must be a whole number from 1 to 1000")
            }
            maximumConnections = value
        } else {
            maximumConnections = 20
        }
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = timeout
        // No session state: through a pooler in transaction mode (PgBouncer) consecutive
        // transactions run on different server connections, so the statement timeout is set per
        // transaction (`runTransaction`), never at the connection's start.
        if let schema = query.first(where: { $0.name == "search_path" })?.value {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
    }

    /// The pool's connections live as long as this runs (`PostgresClient.run`, ended by a graceful
    /// shutdown or cancellation), and so do the statements outside a transaction.
    public func run() async {
        let (client, statements) = (self.client, self.statements)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await client.run()
                statements.continuation.finish()
            }
            for await statement in statements.stream { group.addTask { await statement() } }
        }
    }

    public let capabilities = SQLCapabilities(skipLocked: true, advisoryLocks: true)

    /// The pool serves reads and writes alike.
    public func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await query(sql, binds)
    }

    /// One statement outside a transaction. It carries no server-side bound of its own (the bound
    /// is set per transaction; one of its own would take three more round trips: docs/operations.md,
    /// "PostgreSQL through PgBouncer"), so its caller is answered `unavailable` at the bound even
    /// while the statement still runs; the statement ends on the server (at the database's own
    /// `statement_timeout`, or once what it waits for is done) and its connection returns to the pool then.
    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await abandonable { [client, logger] _ in
            try await Self.mapErrors { try await Self.rows(client.query(Self.query(sql, binds), logger: logger)) }
        }
    }

    package static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Waits for `outcome` at most `timeout`; past it throws `unavailable`.
    private func waitBounded<T: Sendable>(for outcome: StatementOutcome<T>) async throws -> T {
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                guard let result = await outcome.settled() else { throw CancellationError() }
                return try result.get()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw SQLEngineError.unavailable }
            return value
        }
    }

    /// Runs `body` as a child of `run` and answers its outcome, or `unavailable` once `timeout` has
    /// passed (or the caller is cancelled): then `body` is cancelled — a wait for a connection
    /// ends, a transaction rolls back at its next statement or before its commit — and left to end
    /// by itself under `run`, since a statement already sent cannot be taken back by postgres-nio
    /// and may not end (a pooler's queue, a connection lost without notice). A transaction whose
    /// commit was sent before the bound (`StatementOutcome.claimForCommit`) is waited for one
    /// bound more: its caller learns whether it committed unless the commit's answer takes longer
    /// (then `unavailable` leaves the outcome unknown: the one case where it may have committed).
    /// The caller's trace context goes with `body`, so its spans stay in the request's trace.
    private func abandonable<T: Sendable>(_ body: @escaping @Sendable (StatementOutcome<T>) async throws -> T) async throws -> T {
        let outcome = StatementOutcome<T>()
        let context = ServiceContext.current
        let queued = statements.continuation.yield {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        let value = try await ServiceContext.$current.withValue(context) { try await body(outcome) }
                        outcome.finish(with: .success(value))
                    } catch {
                        outcome.finish(with: .failure(error))
                    }
                }
                group.addTask { _ = await outcome.settled() }
                _ = await group.next()
                group.cancelAll()
            }
        }
        guard case .enqueued = queued else { throw SQLEngineError.unavailable }
        do {
            return try await waitBounded(for: outcome)
        } catch {
            switch outcome.giveUp(with: error) {
            case .settled(let result): return try result.get()
            case .committing:
                do {
                    return try await waitBounded(for: outcome)
                } catch {
                    return try outcome.abandon(with: error).get()
                }
            }
        }
    }

    /// Runs `body` in a transaction, retried up to three times when PostgreSQL aborts it for a
    /// deadlock or a serialization failure. Each transaction sets PostgreSQL's `statement_timeout`
    /// for itself (`set_config(…, true)`, as `SET LOCAL`): the call's bound, or none for an
    /// `unbounded` one. A bounded call (retries included) is answered within the bound
    /// (`abandonable`); when it is answered `unavailable`, the transaction does not commit.
    public func transaction<T: Sendable>(_ bound: SQLCallBound, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
        guard bound == .request else { return try await retrying { try await self.runTransaction(bound, nil, body) } }
        return try await abandonable { outcome in
            try await self.retrying { try await self.runTransaction(bound, outcome, body) }
        }
    }

    private func retrying<T: Sendable>(_ attempt: () async throws -> T) async throws -> T {
        var attempts = 1
        while true {
            do {
                return try await attempt()
            } catch let error as PSQLError where attempts < 3 && ["40P01", "40001"].contains(error.serverInfo?[.sqlState]) {
                attempts += 1
                try await Task.sleep(for: .milliseconds(5 * attempts))
            }
        }
    }

    /// One attempt of a transaction. Bounded (`outcome` given): it stops at its next statement
    /// once its caller gave up (cancellation), and commits only if it claims the outcome first.
    private func runTransaction<T: Sendable>(_ bound: SQLCallBound, _ outcome: StatementOutcome<T>?,
                                             _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await Self.mapErrors {
            try await client.withConnection { connection in
                try Task.checkCancellation()
                let lost = ConnectionLoss()
                try await connection.query("BEGIN", logger: logger)
                do {
                    // The bound for this transaction only (0: none), on whichever server connection
                    // a pooler gave it: the connection's own setting is never relied on.
                    let milliseconds = bound == .unbounded ? 0 : Self.milliseconds(timeout)
                    try await connection.query("SELECT set_config('statement_timeout', \(String(milliseconds)), true)", logger: logger)
                    let result = try await body(Transaction(connection: connection, logger: logger, lost: lost))
                    try Task.checkCancellation()
                    if let outcome, !outcome.claimForCommit() { throw SQLEngineError.unavailable }
                    guard !connection.isClosed else { throw SQLEngineError.unavailable }
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    // A connection in doubt (the server ended it, or a statement on it failed for
                    // the database's reason) is closed rather than sent a ROLLBACK: the server
                    // rolls back a transaction whose connection closes, and a statement written
                    // to a connection as it closes could be lost with its answer.
                    if !lost.happened, Self.canRollBack(connection, after: error) {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                    } else {
                        try? await connection.close()
                    }
                    throw error
                }
            }
        }
    }

    /// The pool closes when `run` ends.
    public func close() async throws {}

    /// Nothing: PostgreSQL keeps a deleted row's old version until a VACUUM (docs/operations.md).
    public func checkpoint() async throws {}

    /// Whether a statement of a transaction failed in a way that ends its connection, told from
    /// the error before `mapErrors` makes it `unavailable` (as it makes a statement timeout).
    private final class ConnectionLoss: Sendable {
        private let lost = Atomic(false)
        var happened: Bool { lost.load(ordering: .relaxed) }
        func record(_ error: any Error) {
            if let error = error as? PSQLError, PostgresEngine.endsConnection(error) { lost.store(true, ordering: .relaxed) }
        }
    }

    private struct Transaction: SQLExecutor {
        let connection: PostgresConnection
        let logger: Logger
        let lost: ConnectionLoss
        /// - Throws: `CancellationError` once the caller gave up (the transaction then rolls back);
        ///   `unavailable` on a closed connection, and what `mapErrors` maps.
        func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try Task.checkCancellation()
            // A connection found closed is not written to (its answer could be lost).
            guard !connection.isClosed else { throw SQLEngineError.unavailable }
            return try await PostgresEngine.mapErrors {
                do {
                    return try await PostgresEngine.rows(connection.query(PostgresEngine.query(sql, binds), logger: logger))
                } catch {
                    lost.record(error)
                    throw error
                }
            }
        }
    }

    fileprivate static func query(_ sql: String, _ binds: [SQLValue]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let value): bindings.append(value)
            case .integer(let value): bindings.append(value)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    fileprivate static func rows(_ sequence: PostgresRowSequence) async throws -> [SQLRow] {
        var result: [SQLRow] = []
        for try await row in sequence {
            var values: SQLRow = [:]
            for cell in row {
                values[cell.columnName] = try value(of: cell)
            }
            result.append(values)
        }
        return result
    }

    private static func value(of cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        default: return .text(try cell.decode(String.self))
        }
    }

    fileprivate static func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw SQLEngineError.uniqueViolation(UniqueConstraint(postgresConstraint: error.serverInfo?[.constraintName] ?? ""))
        } catch let error as PSQLError where error.serverInfo == nil || isUnavailable(error.serverInfo?[.sqlState]) {
            throw SQLEngineError.unavailable
        }
    }

    /// Whether PostgreSQL's `sqlState` says the database, not the statement, failed: 57014, the
    /// statement ran past `statement_timeout` (the call's bound), or a state that ends the
    /// connection (`endsConnection`). (No `sqlState` at all is the connection's own failure.)
    static func isUnavailable(_ sqlState: String?) -> Bool {
        sqlState == "57014" || endsConnection(sqlState)
    }

    /// Class 08, the connection failed; 57P01–57P03, the server shuts down, crashed or is
    /// starting; 53300, too many connections.
    private static func endsConnection(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return ["57P01", "57P02", "57P03", "53300"].contains(sqlState) || sqlState.hasPrefix("08")
    }

    /// Whether `connection` can run a `ROLLBACK` after `error`: it is open and the error did not
    /// end it (`endsConnection`); a statement timeout, a constraint, a deadlock, the body's own
    /// error or the caller giving up leave it usable.
    static func canRollBack(_ connection: PostgresConnection, after error: any Error) -> Bool {
        guard !connection.isClosed else { return false }
        guard let error = error as? PSQLError else { return true }
        return !endsConnection(error)
    }

    /// Whether `error` ends its connection: no answer from the server (refused, closed, reset),
    /// a FATAL or PANIC answer, or a state of the connection's or the server's end.
    static func endsConnection(_ error: PSQLError) -> Bool {
        guard let info = error.serverInfo else { return true }
        return ["FATAL", "PANIC"].contains(info[.severity] ?? "") || endsConnection(info[.sqlState])
    }
}

