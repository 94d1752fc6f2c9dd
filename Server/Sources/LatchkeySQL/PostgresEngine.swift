import Foundation
import LatchkeyDomain
import Logging
import PostgresNIO

/// The engine for deployments with several replicas: PostgreSQL through a connection pool.
public final class PostgresEngine: SQLEngine {
    public let kind = DatabaseEngine.postgres
    private let client: PostgresClient
    private let logger: Logger

    /// Connects to a `postgres://user:password@host:port/database` URL (`?sslmode=disable` turns TLS off; `?search_path=SCHEMA` picks a schema).
    /// How long one call (a connection from the pool and the statement, or a whole transaction)
    /// may take before it fails with `unavailable`: during an outage requests fail fast instead of
    /// waiting for the pool's reconnection attempts.
    package let timeout: Duration

    public init(url: String, logger: Logger, timeout: Duration = .seconds(1)) throws {
        self.timeout = timeout
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
              let host = components.host, let user = components.user
        else { throw SQLEngineError.invalidURL("Expected postgres://user[:password]@host[:port]/database") }
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS = sslMode == "disable" ? .disable : .prefer(.makeClientConfiguration())
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls)
        configuration.options.maximumConnections = 20
        configuration.options.connectTimeout = timeout
        // The server ends a statement past the bound itself (a lock wait too): a statement the pool
        // cannot take back would otherwise hold the call until it finished, however long.
        configuration.options.additionalStartupParameters = [("statement_timeout", String(Self.milliseconds(timeout)))]
        if let schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value {
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
    }

    /// The pool's connections live as long as this runs (`PostgresClient.run`, ended by a graceful
    /// shutdown or cancellation).
    public func run() async {
        await client.run()
    }

    public let capabilities = SQLCapabilities(skipLocked: true, advisoryLocks: true)

    /// The pool serves reads and writes alike.
    public func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await query(sql, binds)
    }

    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await bounded { [client, logger] in
            try await Self.mapErrors { try await Self.rows(client.query(Self.query(sql, binds), logger: logger)) }
        }
    }

    package static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Runs `body` within `timeout`; past it, cancels it and throws `unavailable`.
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

    /// Runs `body` in a transaction, retried up to three times when PostgreSQL aborts it for a
    /// deadlock or a serialization failure. An `unbounded` transaction lifts the statement timeout
    /// for itself only (`SET LOCAL`).
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
                    if bound == .unbounded { try await connection.query("SET LOCAL statement_timeout = 0", logger: logger) }
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
