import Foundation
import Logging

/// Everything the server keeps. One protocol, two engines (SQLite, PostgreSQL); uniqueness and
/// single use are enforced by the database so parallel requests on several replicas agree.
public protocol LatchkeyStore: AuthenticationStore, CredentialStore, ResetStore, SignupStore, FederationStore {
    /// The engine's name (`sqlite`, `postgres`).
    var engineName: String { get }
    /// Applies the schema versions not yet applied; answers the versions it applied.
    @discardableResult func migrate() async throws -> [Int]
    /// The schema versions applied so far.
    func appliedMigrations() async throws -> [Int]
    /// Succeeds when the database answers.
    func ping() async throws

    /// Stores a new user with its MFA answers, tokens and outgoing messages in one transaction.
    /// Throws `StoreError.emailInUse` when the issuer already has the address.
    func createUser(_ user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                    messages: [OutboxMessage]) async throws
    /// The user of `issuer` with this (normalized) email address.
    func user(issuer: String, emailNormalized: String) async throws -> UserRecord?
    /// The user with this id.
    func user(id: String) async throws -> UserRecord?
    /// The hashes of a user's MFA answers.
    func mfaAnswers(userID: String) async throws -> [MFAAnswerRecord]
    /// Marks an unused, unexpired token of this purpose used and answers it; nil when it is
    /// unknown, used or expired. Atomic: of parallel calls for one token, one succeeds.
    func consumeToken(digest: String, purpose: TokenPurpose, now: Date) async throws -> TokenRecord?

    /// Adds messages to the outbox.
    func enqueue(_ messages: [OutboxMessage]) async throws
    /// Leases up to `limit` due, undelivered messages for `lease` seconds, oldest first.
    func claimMessages(now: Date, lease: TimeInterval, limit: Int) async throws -> [OutboxMessage]
    /// Records a delivery and drops the sealed payload.
    func markDelivered(id: String, at: Date) async throws
    /// Records a failed attempt; `giveUp` stops further attempts.
    func markFailed(id: String, attempts: Int, nextAttemptAt: Date, error: String, giveUp: Bool, now: Date) async throws
    /// One outbox message.
    func outboxMessage(id: String) async throws -> OutboxMessage?
    /// Every outbox message, oldest first (operators and tests).
    func outboxMessages() async throws -> [OutboxMessage]

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

    public static func open(_ url: String, logger: Logger) async throws -> any LatchkeyStore {
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return SQLStore(engine: try PostgresEngine(url: url, logger: logger))
        }
        guard url.hasPrefix("sqlite:") else {
            throw ConfigurationError(key: "database", message: "Use sqlite:PATH, sqlite::memory: or a postgres:// URL.")
        }
        let path = String(url.dropFirst("sqlite:".count))
        guard !path.isEmpty else { throw ConfigurationError(key: "database", message: "sqlite: needs a path.") }
        return SQLStore(engine: try await SQLiteEngine(path: path))
    }
}
