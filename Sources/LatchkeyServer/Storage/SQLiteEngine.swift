import Foundation
import NIOCore
import SQLiteNIO

/// The embedded engine: one SQLite file in WAL mode. Statements are serialized through one
/// connection, so a transaction is never interleaved with another task's statements.
public final class SQLiteEngine: SQLEngine {
    public let name = "sqlite"
    private let connection: SQLiteConnection
    private let lock = AsyncSerialLock()

    /// Opens `path` (created if missing) or an in-memory database for `":memory:"`.
    public init(path: String) async throws {
        let storage: SQLiteConnection.Storage = path == ":memory:" ? .memory : .file(path: path)
        connection = try await SQLiteConnection.open(storage: storage)
        _ = try await Self.run(connection, "PRAGMA journal_mode=WAL", [])
        _ = try await Self.run(connection, "PRAGMA busy_timeout=5000", [])
        _ = try await Self.run(connection, "PRAGMA foreign_keys=ON", [])
    }

    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await lock.withLock { try await Self.run(connection, sql, binds) }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await lock.withLock {
            _ = try await Self.run(connection, "BEGIN IMMEDIATE", [])
            do {
                let result = try await body(Transaction(connection: connection))
                _ = try await Self.run(connection, "COMMIT", [])
                return result
            } catch {
                _ = try? await Self.run(connection, "ROLLBACK", [])
                throw error
            }
        }
    }

    public func close() async throws {
        try await connection.close()
    }

    private struct Transaction: SQLExecutor {
        let connection: SQLiteConnection
        func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try await SQLiteEngine.run(connection, sql, binds)
        }
    }

    fileprivate static func run(_ connection: SQLiteConnection, _ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        let statement = sql.replacingOccurrences(of: "$", with: "?")
        let data: [SQLiteData] = binds.map {
            switch $0 {
            case .text(let value): .text(value)
            case .integer(let value): .integer(Int(value))
            case .null: .null
            }
        }
        let rows = RowCollector()
        do {
            try await connection.query(statement, data) { rows.append($0) }
        } catch let error as SQLiteError where error.reason == .constraint || error.reason == .constraintUniqueFailed
            || error.reason == .constraintPrimaryKeyFailed {
            throw SQLEngineError.uniqueViolation(error.message)
        }
        return rows.rows.map { row in
            var result: SQLRow = [:]
            for column in row.columns {
                switch column.data {
                case .integer(let value): result[column.name] = .integer(Int64(value))
                case .text(let value): result[column.name] = .text(value)
                case .float(let value): result[column.name] = .integer(Int64(value))
                case .blob(let buffer): result[column.name] = .text(String(buffer: buffer))
                case .null: result[column.name] = .null
                }
            }
            return result
        }
    }
}

/// Collects rows from the synchronous row callback of SQLiteNIO.
private final class RowCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [SQLiteRow] = []
    func append(_ row: SQLiteRow) { lock.withLock { storage.append(row) } }
    var rows: [SQLiteRow] { lock.withLock { storage } }
}
