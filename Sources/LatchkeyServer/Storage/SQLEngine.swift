import Foundation

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
}

/// A database engine behind the store: SQLite or PostgreSQL.
public protocol SQLEngine: SQLExecutor {
    /// The engine's name as shown in logs and `/ready`.
    var name: String { get }
    /// Runs `body` in one transaction, committed if it returns and rolled back if it throws.
    func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Closes the engine's connections.
    func close() async throws
}

/// Failures the engines report in common terms.
public enum SQLEngineError: Error, Sendable, Equatable {
    /// A unique index refused the write; the associated value names the index when known.
    case uniqueViolation(String)
    /// The database URL cannot be used.
    case invalidURL(String)
}

extension SQLExecutor {
    /// Runs a statement whose rows are not needed.
    public func execute(_ sql: String, _ binds: [SQLValue] = []) async throws {
        _ = try await query(sql, binds)
    }
}

extension Date {
    /// Whole seconds since 1970, as stored.
    var epochSeconds: SQLValue { .integer(Int64(timeIntervalSince1970.rounded(.down))) }
}

extension Optional where Wrapped == String {
    /// The value as SQL text or NULL.
    var sql: SQLValue { map(SQLValue.text) ?? .null }
}
