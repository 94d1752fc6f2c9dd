import Foundation

/// What every service shares, built once in `buildApplication`: the issuer's settings, the
/// hasher, the outbox writer, the public URL, the process-local throttle and the clock. A service
/// holds this one value and its own narrow store, so adding a shared dependency touches one type.
public struct ServiceEnvironment: Sendable {
    public let issuer: IssuerSettings
    /// Hashes and verifies secrets off the event loop.
    public let hasher: SecretHasher
    /// Builds and seals what the server sends.
    public let outbox: OutboxWriter
    /// The address users and apps reach the server at (links in emails).
    public let publicURL: PublicBaseURL
    /// The per-process rate limits.
    public let throttle: Throttle
    public let now: @Sendable () -> Date

    public init(issuer: IssuerSettings, hasher: SecretHasher, cipher: OutboxCipher, publicURL: PublicBaseURL,
                throttle: Throttle, now: @escaping @Sendable () -> Date) {
        self.issuer = issuer
        self.hasher = hasher
        self.outbox = OutboxWriter(cipher: cipher, issuer: issuer, publicURL: publicURL)
        self.publicURL = publicURL
        self.throttle = throttle
        self.now = now
    }
}

/// A service built on the shared environment; its members read through it.
protocol EnvironmentService {
    var environment: ServiceEnvironment { get }
}

extension EnvironmentService {
    var issuer: IssuerSettings { environment.issuer }
    var outbox: OutboxWriter { environment.outbox }
    var publicURL: PublicBaseURL { environment.publicURL }
    var now: @Sendable () -> Date { environment.now }

    /// Runs an operation that will compute up to `units` hashes for `caller` once the hash gate
    /// admits it (`HashGate`), with the hasher its hashes must use; throws 503 `overloaded` at
    /// once, before anything moves, when it does not. Services reach the hasher only this way, so
    /// no hash runs outside an admission.
    func admitted<T>(_ units: Int, for caller: Caller, _ body: (SecretHasher) async throws -> T) async throws -> T {
        try await environment.hasher.admitted(units, for: caller, body)
    }

    /// Records a security event; it is written with the task's next write (`AuditTrail`).
    func audit(_ type: AuditEventType, user userID: String?, outcome: AuditOutcome = .success, reason: String? = nil,
               deviceID: String? = nil, details: [String: String] = [:]) {
        AuditTrail.record(type, user: userID, outcome: outcome, reason: reason, deviceID: deviceID, details: details, at: now())
    }
}
