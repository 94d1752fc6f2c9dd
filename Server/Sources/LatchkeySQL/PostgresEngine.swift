import Foundation
import LatchkeyDomain
import Logging
import PostgresNIO

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
        try await abandonable { [client, logger] in
            try await Self.mapErrors { try await Self.rows(client.query(Self.query(sql, binds), logger: logger)) }
        }
    }

    package static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Runs `body` within `timeout`; past it, cancels it and throws `unavailable`, waiting for it to
    /// end (a transaction's statements are ended by the server at the same bound).
    private func bounded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
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
    /// passed: then `body` is cancelled (a wait for a connection ends) and left to end by itself
    /// under `run` (a statement already sent cannot be taken back by postgres-nio).
    private func abandonable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = StatementOutcome<T>()
        let queued = statements.continuation.yield {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do { outcome.finish(with: .success(try await body())) } catch { outcome.finish(with: .failure(error)) }
                }
                group.addTask { _ = await outcome.settled() }
                _ = await group.next()
                group.cancelAll()
            }
        }
        guard case .enqueued = queued else { throw SQLEngineError.unavailable }
        do {
            return try await bounded {
                guard let result = await outcome.settled() else { throw CancellationError() }
                return try result.get()
            }
        } catch {
            // Settles the outcome if the statement has not: its task stops waiting for a connection.
            outcome.finish(with: .failure(error))
            throw error
        }
    }

    /// Runs `body` in a transaction, retried up to three times when PostgreSQL aborts it for a
    /// deadlock or a serialization failure. Each transaction sets PostgreSQL's `statement_timeout`
    /// for itself (`set_config(…, true)`, as `SET LOCAL`): the call's bound, or none for an `unbounded` one.
    public func transaction<T: Sendable>(_ bound: SQLCallBound, _ body: @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await withoutActuallyEscaping(body) { body in
                    bound == .unbounded ? try await runTransaction(bound, body)
                        : try await bounded { try await self.runTransaction(bound, body) }
                }
            } catch let error as PSQLError where attempt < 3 && ["40P01", "40001"].contains(error.serverInfo?[.sqlState]) {
                attempt += 1
                try await Task.sleep(for: .milliseconds(5 * attempt))
            }
        }
    }

    private func runTransaction<T: Sendable>(_ bound: SQLCallBound, _ body: @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
        try await Self.mapErrors {
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    // The bound for this transaction only (0: none), on whichever server connection
                    // a pooler gave it: the connection's own setting is never relied on.
                    let milliseconds = bound == .unbounded ? 0 : Self.milliseconds(timeout)
                    try await connection.query("SELECT set_config('statement_timeout', \(String(milliseconds)), true)", logger: logger)
                    let result = try await body(Transaction(connection: connection, logger: logger))
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// The pool closes when `run` ends.
    public func close() async throws {}

    /// Nothing: PostgreSQL keeps a deleted row's old version until a VACUUM (docs/operations.md).
    public func checkpoint() async throws {}

    private struct Transaction: SQLExecutor {
        let connection: PostgresConnection
        let logger: Logger
        func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try await PostgresEngine.mapErrors {
                try await PostgresEngine.rows(connection.query(PostgresEngine.query(sql, binds), logger: logger))
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
        } catch let error as PSQLError where error.serverInfo == nil || error.serverInfo?[.sqlState] == "57014" {
            // Not the server's answer but the connection's failure (refused, closed, reset), or
            // 57014: the statement ran past `statement_timeout` (the call's bound).
            throw SQLEngineError.unavailable
        }
    }
}

