import Foundation

/// Failures the engines report in common terms.
public enum SQLEngineError: Error, Sendable, Equatable {
    /// A unique index or primary key refused the write.
    case uniqueViolation(UniqueConstraint)
    /// The database URL cannot be used.
    case invalidURL(String)
    /// The database did not answer within the engine's timeout, or the connection failed
    /// (answered 503 `not_ready` with `Retry-After`).
    case unavailable
}

/// The unique constraints whose violation means something to the store. Each engine recognises
/// them in its own terms: PostgreSQL by constraint name, SQLite by the columns it reports.
public enum UniqueConstraint: Sendable, Equatable {
    /// `users_issuer_email`: one wallet per address per issuer.
    case userEmail
    /// `users_issuer_phone`: one identity per verified phone number per issuer.
    case userPhone
    /// The primary key of `federated_identities`: one wallet per provider subject.
    case federatedSubject
    /// `devices_key`: a device key is linked to one wallet at most.
    case deviceKey
    /// Any other unique index or primary key, as the engine names it.
    case other(String)
}
