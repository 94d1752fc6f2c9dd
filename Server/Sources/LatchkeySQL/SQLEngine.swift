import Foundation
import LatchkeyDomain

/// A value bound to or read from SQL, common to both engines.
public enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case null

    public var string: String? { if case .text(let value) = self { value } else { nil } }
    public var int: Int64? { if case .integer(let value) = self { value } else { nil } }
}

/// One result row, by column name.
public typealias SQLRow = [String: SQLValue]

/// Something that runs SQL: an engine, or an open transaction of one.
/// Statements use `$1`, `$2`, … placeholders on both engines.
public protocol SQLExecutor: Sendable {
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// The trail of the transaction this executor runs (its events are inserted with it); nil
    /// outside an audited transaction.
    var audit: AuditTrail? { get }
}

extension SQLExecutor {
    public var audit: AuditTrail? { nil }
}

/// A database engine behind the store: SQLite or PostgreSQL.
public protocol SQLEngine: SQLExecutor {
    /// Which engine it is, as shown in logs and `/ready`.
    var kind: DatabaseEngine { get }
    /// What the engine's SQL can do beyond the common statements.
    var capabilities: SQLCapabilities { get }
    /// Runs a read-only statement; an engine may send it to a reader connection.
    func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// Runs the engine's background work until a graceful shutdown or cancellation.
    func run() async
    /// Runs `body` in one transaction, committed if it returns and rolled back if it throws.
    /// `bound` says whether the request's database timeout applies (`SQLCallBound`); a bounded
    /// call that throws `SQLEngineError.unavailable` did not commit (unless its commit was sent
    /// before the bound and answered a second bound later: then the outcome is unknown). `body` may outlive the call
    /// (PostgreSQL lets a transaction past its bound end by itself, rolled back), so it escapes.
    func transaction<T: Sendable>(_ bound: SQLCallBound, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Closes the engine's connections.
    func close() async throws
    /// Copies what committed transactions wrote into the database file and empties the log, so
    /// that content they deleted is in no file any more (after an erasure). SQLite checkpoints its
    /// WAL and truncates it; PostgreSQL does nothing (its dead rows need a VACUUM, which an
    /// operator runs: docs/operations.md, "Erasing a user"). Throws what the engine throws.
    func checkpoint() async throws
}

/// How long a database call may take. A request's calls are bounded (`databaseTimeoutMilliseconds`,
/// also PostgreSQL's `statement_timeout`), so a stalled database answers 503 in time; migrations
/// and purges say they may take longer, for their own transaction only.
public enum SQLCallBound: Sendable, Equatable {
    /// Within the configured database timeout.
    case request
    /// As long as it takes (migrations, the retention purge).
    case unbounded
}

extension SQLEngine {
    /// Runs `body` in one transaction bounded like a request's call.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction(.request, body)
    }
}

extension UniqueConstraint {
    /// PostgreSQL's constraint name.
    package init(postgresConstraint name: String) {
        switch name {
        case "users_issuer_email": self = .userEmail
        case "users_issuer_phone": self = .userPhone
        case "federated_identities_pkey": self = .federatedSubject
        case "devices_key": self = .deviceKey
        default: self = .other(name)
        }
    }

    /// SQLite's columns, from its message `UNIQUE constraint failed: users.issuer, users.email_normalized`.
    package init(sqliteColumns columns: String) {
        switch columns {
        case "users.issuer, users.email_normalized": self = .userEmail
        case "users.issuer, users.phone_normalized": self = .userPhone
        case "federated_identities.provider_id, federated_identities.subject": self = .federatedSubject
        case "devices.device_id": self = .deviceKey
        default: self = .other(columns)
        }
    }
}

/// Capabilities that differ between the engines, asked for instead of the engine's name.
public struct SQLCapabilities: Sendable {
    /// `SELECT … FOR UPDATE SKIP LOCKED`, so concurrent claimers take disjoint rows.
    public var skipLocked: Bool
    /// Transaction-scoped advisory locks (`pg_advisory_xact_lock`), for migrations by replicas
    /// starting together; without them a transaction already excludes other writers.
    public var advisoryLocks: Bool
}

extension SQLExecutor {
    /// Runs a statement whose rows are not needed.
    public func execute(_ sql: String, _ binds: [SQLValue] = []) async throws {
        _ = try await query(sql, binds)
    }
}

extension Date {
    /// Whole seconds since 1970, as stored.
    package var epochSeconds: SQLValue { .integer(Int64(timeIntervalSince1970.rounded(.down))) }
}

extension Optional where Wrapped == String {
    /// The value as SQL text or NULL.
    package var sql: SQLValue { map(SQLValue.text) ?? .null }
}

extension SQLExecutor {
    /// Inserts `rows` into `table` with as few statements as both engines' limits on bound values
    /// allow (SQLite's is 32,766), each statement ending in `suffix` (an `ON CONFLICT` clause, a
    /// `RETURNING`); returns the rows the statements returned.
    @discardableResult
    package func insert(into table: String, columns: [String], rows: [[SQLValue]], suffix: String = "") async throws -> [SQLRow] {
        let perStatement = max(1, min(500, 30_000 / max(1, columns.count)))
        var returned: [SQLRow] = []
        var start = rows.startIndex
        while start < rows.endIndex {
            let chunk = rows[start..<min(start + perStatement, rows.endIndex)]
            var binds: [SQLValue] = []
            binds.reserveCapacity(chunk.count * columns.count)
            let tuples = chunk.map { row in
                let placeholders = row.map { value in
                    binds.append(value)
                    return "$\(binds.count)"
                }
                return "(" + placeholders.joined(separator: ", ") + ")"
            }
            returned += try await query("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
                                        + tuples.joined(separator: ", ") + " " + suffix, binds)
            start += chunk.count
        }
        return returned
    }
}
