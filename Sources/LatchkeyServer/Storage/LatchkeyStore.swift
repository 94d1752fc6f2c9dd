import Foundation
import LatchkeyCore
import Logging

/// Everything the server keeps. One protocol, two engines (SQLite, PostgreSQL); uniqueness and
/// single use are enforced by the database so parallel requests on several replicas agree.
/// Services never see this whole protocol: each declares the narrow ones it uses
/// (`StoreProtocols.swift`), so what a service can touch is in its type.
public protocol LatchkeyStore: AuditStore, ImportStore, SecretFingerprintStore, UserStore, AttemptStore, DeviceStore, SessionStore, OutboxStore, CredentialStore, ResetStore, WindowCounterStore,
    SignupStore, FederationStore, ProofStore, StoreAdministration {}

/// The database itself: schema, health and the connection pool's lifetime. The application's
/// lifecycle, `/ready` and the CLI's `migrate` use it; services never do.
public protocol StoreAdministration: Sendable {
    /// The engine behind the store.
    var databaseEngine: DatabaseEngine { get }
    /// Applies the schema versions not yet applied; answers the versions it applied.
    @discardableResult func migrate() async throws -> [Int]
    /// The schema versions applied so far.
    func appliedMigrations() async throws -> [Int]
    /// Succeeds when the database answers.
    func ping() async throws

    /// Runs the store's background work (PostgreSQL's connection pool) until a graceful shutdown
    /// or cancellation; queries wait for it. Run it through `StoreService` in an application, or
    /// `StoreFactory.withStore` elsewhere.
    func run() async
    /// Closes the connections; closing again does nothing.
    func close() async throws
}

/// Opens the store a `--database` value names: `sqlite:PATH`, `sqlite::memory:` or `postgres://…`.
public enum StoreFactory {
    /// The database URL with its password masked, for logs and the console.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(database)"
    }

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
