import Foundation
import LatchkeyCore
import Logging

/// Everything the server keeps. One protocol, two engines (SQLite, PostgreSQL); uniqueness and
/// single use are enforced by the database so parallel requests on several replicas agree.
/// Services never see this whole protocol: each declares the narrow ones it uses
/// (`StoreProtocols.swift`), so what a service can touch is in its type.
public protocol LatchkeyStore: AuditStore, ImportStore, SecretFingerprintStore, UserStore, AttemptStore, DeviceStore, SessionStore, OutboxStore, CredentialStore, ResetStore, WindowCounterStore,
    SignupStore, FederationStore, PasskeyStore, OneTimeFactorStore, FactorInventoryStore, ProofStore, StatisticsStore, OperatorKeyStore, AdminStore, AdminAuditStore, AdminActionStore, ConsoleStore, StoreAdministration {}

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

/// Every narrow store protocol is one: a service writes through the view of its store that
/// carries the request's audit trail (`store.recording(into: caller.audit)`), so the events it
/// recorded are inserted in the transaction of its next write and commit or roll back with it.
public protocol AuditingStore: Sendable {
    /// The same store (same connections, same caches), writing `trail`'s pending events in the
    /// transaction of each write.
    func recording(into trail: AuditTrail) -> Self
}
