import Crypto
import Foundation

/// Records a service's security events in the trail of its caller's request or command
/// (`caller.audit`), stamped with the server's clock: they are written with the next write of
/// the store view that carries the trail. Built once (`buildServices`) and given to each service
/// that records; called like a function: `audit(.loginSucceeded, user: id, for: caller)`.
public struct AuditRecorder: Sendable {
    package let now: @Sendable () -> Date
    /// The key of the digests `identifier(_:)` records, derived from the pepper (HKDF, its own label).
    package let identifierKey: SymmetricKey

    public init(now: @escaping @Sendable () -> Date, pepper: SymmetricKey) {
        self.now = now
        self.identifierKey = PepperPurpose.auditIdentifier.key(from: pepper)
    }

    package func callAsFunction(_ type: AuditEventType, user userID: String?, outcome: AuditOutcome = .success, reason: AuditReason? = nil,
                        deviceID: String? = nil, details: [String: String] = [:], for caller: Caller) {
        caller.audit.record(type, user: userID, outcome: outcome, reason: reason, deviceID: deviceID, details: details, at: now())
    }
}

/// A service's only way to the hasher: an operation states the most hashes it can run for its
/// caller, and once the hash gate admits them (`HashGate`) its body gets the hasher bound to that
/// admission; 503 `overloaded` at once, before anything moves, when it does not. Called like a
/// function: `admitted(1, for: caller) { hasher in … }`.
public struct HashAdmission: Sendable {
    package let hasher: SecretHasher

    public init(hasher: SecretHasher) {
        self.hasher = hasher
    }

    /// - Throws: `DomainError(.overloaded)` (503, `retryAfter`), or what `body` throws.
    package func callAsFunction<T>(_ units: Int, for caller: Caller, _ body: (SecretHasher) async throws -> T) async throws -> T {
        try await hasher.admitted(units, for: caller, body)
    }
}
