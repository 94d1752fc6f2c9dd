import Foundation
import LatchkeyDomain
import NIOCore
import SQLiteNIO
import ServiceLifecycle
import Synchronization

/// The embedded engine: one SQLite file in WAL mode. Writes and transactions go through one
/// connection, serialized, so a transaction is never interleaved with another task's statements;
/// plain `SELECT`s run on reader connections, which WAL lets proceed beside the writer.
public final class SQLiteEngine: SQLEngine {
    public let kind = DatabaseEngine.sqlite
    private let connection: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let next = Counter()
    private let lock = AsyncSerialLock()
    private let closed = Mutex(false)

    /// Opens `path` (created if missing) or an in-memory database for `":memory:"`.
    public init(path: String, readers readerCount: Int = 4) async throws {
        let memory = path == ":memory:"
        connection = try await SQLiteConnection.open(storage: memory ? .memory : .file(path: path))
        _ = try await Self.run(connection, "PRAGMA journal_mode=WAL", [])
        _ = try await Self.run(connection, "PRAGMA busy_timeout=5000", [])
        _ = try await Self.run(connection, "PRAGMA foreign_keys=ON", [])
        // Deleted content is overwritten with zeros rather than left in free space, so an erased
        // user's rows are gone from the file and from the WAL's copies of its pages (`checkpoint`).
        _ = try await Self.run(connection, "PRAGMA secure_delete=ON", [])
        // 64 MiB of page cache for the writer, 16 MiB for each reader, instead of 2 MiB: at a
        // million users the indexes an import's batches insert into and a login's lookups read
        // stay in memory instead of spilling to disk.
        _ = try await Self.run(connection, "PRAGMA cache_size=-65536", [])
        var readers: [SQLiteConnection] = []
        for _ in 0..<(memory ? 0 : readerCount) {
            let reader = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await Self.run(reader, "PRAGMA busy_timeout=5000", [])
            _ = try await Self.run(reader, "PRAGMA query_only=ON", [])
            _ = try await Self.run(reader, "PRAGMA cache_size=-16384", [])
            readers.append(reader)
        }
        self.readers = readers
    }

    public let capabilities = SQLCapabilities(skipLocked: false, advisoryLocks: false)

    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await lock.withLock { try await Self.run(connection, sql, binds) }
    }

    /// Read-only statements go to a reader connection (they are `query_only`), round robin.
    public func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        if readers.isEmpty { return try await query(sql, binds) }
        return try await Self.run(readers[next.increment() % readers.count], sql, binds)
    }

    /// SQLite has no statement timeout: `bound` changes nothing.
    public func transaction<T: Sendable>(_ bound: SQLCallBound, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
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

    /// SQLite has no background work; this waits for the shutdown so the engine is a well-behaved service.
    public func run() async {
        try? await gracefulShutdown()
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: every committed page into the file, then the WAL emptied
    /// to zero bytes (the older versions of pages it held go with it); it waits for readers as
    /// long as `busy_timeout` allows, and is tried again, up to five times a tenth of a second
    /// apart, while a reader still holds the WAL (SQLite answers `busy`, not an error). Throws
    /// `unavailable` when the WAL could not be emptied, or what SQLite throws.
    public func checkpoint() async throws {
        for attempt in 0..<5 {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(100)) }
            let rows = try await lock.withLock { try await Self.run(connection, "PRAGMA wal_checkpoint(TRUNCATE)", []) }
            if try rows.first?.integer("busy") == 0 { return }
        }
        throw SQLEngineError.unavailable
    }

    public func close() async throws {
        guard closed.withLock({ closed in defer { closed = true }; return !closed }) else { return }
        for reader in readers { try await reader.close() }
        try await connection.close()
    }

    private struct Transaction: SQLExecutor {
        let connection: SQLiteConnection
        func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try await SQLiteEngine.run(connection, sql, binds)
        }
    }

    fileprivate static func run(_ connection: SQLiteConnection, _ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        // `$n` is `?n` to SQLite; byte by byte, because Foundation's replace was a seventh of an
        // import's time (and runs on every query).
        let statement = String(decoding: sql.utf8.map { $0 == UInt8(ascii: "$") ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
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
            // Without extended result codes SQLite reports every constraint as `.constraint`; its
            // message tells a unique or primary key violation (and its columns) from the others.
            let prefix = "UNIQUE constraint failed: "
            guard error.message.hasPrefix(prefix) else { throw error }
            throw SQLEngineError.uniqueViolation(UniqueConstraint(sqliteColumns: String(error.message.dropFirst(prefix.count))))
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

/// A thread-safe counter for round-robin choices.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.withLock { value &+= 1; return value & Int.max } }
}

/// Collects rows from the synchronous row callback of SQLiteNIO.
private final class RowCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [SQLiteRow] = []
    func append(_ row: SQLiteRow) { lock.withLock { storage.append(row) } }
    var rows: [SQLiteRow] { lock.withLock { storage } }
}
