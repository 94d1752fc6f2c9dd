import Foundation
import LatchkeyCore
import LatchkeyDomain
import Logging

/// Opens the store a `--database` value names: `sqlite:PATH`, `sqlite::memory:` or `postgres://…`.
public enum StoreFactory {
    /// `timeout` bounds each PostgreSQL call (`PostgresEngine.timeout`).
    /// - Throws: `ConfigurationError` for a value that is no database URL (`DatabaseURL`), or the engine's error.
    public static func open(_ url: String, logger: Logger, timeout: Duration = .seconds(1)) async throws -> any LatchkeyStore {
        try await open(DatabaseURL(url), logger: logger, timeout: timeout)
    }

    /// Opens the store of a parsed database URL.
    public static func open(_ database: DatabaseURL, logger: Logger, timeout: Duration = .seconds(1)) async throws
        -> any LatchkeyStore {
        guard let path = database.sqlitePath else {
            return SQLStore(engine: try PostgresEngine(url: database.string, logger: logger, timeout: timeout))
        }
        if path != ":memory:", !FileManager.default.fileExists(atPath: path) {
            // An empty file is an empty database; made 0600 first, SQLite gives its -wal and -shm
            // files the same mode.
            do { try PrivateFile.create(path, contents: Data()) } catch let failure as PrivateFile.Failure where failure.exists {}
        }
        return SQLStore(engine: try await SQLiteEngine(path: path))
    }
}
