import Foundation

/// An operator's API key as stored: its digest, never the key (`OperatorKeys`).
public struct OperatorKeyRecord: Sendable, Equatable {
    /// The key's public id, also the prefix of the key itself (`lkop_<id>_<secret>`).
    public var id: String
    /// Who or what holds it (`support-desk`, `issuer-backend`).
    public var name: String
    public var role: OperatorRole
    /// The hex SHA-256 digest of the whole key.
    public var digest: String
    public var createdAt: Date
    /// Nil: it does not expire.
    public var expiresAt: Date?
    public var revokedAt: Date?
    /// When it last authenticated a call, to the minute (`OperatorKeys.lastUsedGranularity`).
    public var lastUsedAt: Date?

    public init(id: String, name: String, role: OperatorRole, digest: String, createdAt: Date, expiresAt: Date?,
                revokedAt: Date? = nil, lastUsedAt: Date? = nil) {
        (self.id, self.name, self.role, self.digest, self.createdAt) = (id, name, role, digest, createdAt)
        (self.expiresAt, self.revokedAt, self.lastUsedAt) = (expiresAt, revokedAt, lastUsedAt)
    }

    /// Whether it authenticates a call at `now`: not revoked, not expired.
    public func isUsable(at now: Date) -> Bool {
        revokedAt == nil && (expiresAt.map { now < $0 } ?? true)
    }
}

/// Operators' API keys. Every replica reads the same rows, so a revocation holds everywhere at the
/// next call.
public protocol OperatorKeyStore: AuditingStore {
    /// Stores a new key (its random id and digest are unique: a collision fails the insert).
    func createOperatorKey(_ key: OperatorKeyRecord) async throws
    /// The key with this digest, usable or not.
    func operatorKey(digest: String) async throws -> OperatorKeyRecord?
    /// Every key, newest first.
    func operatorKeys() async throws -> [OperatorKeyRecord]
    /// Revokes the key with this id; false when there is none or it was revoked before.
    func revokeOperatorKey(id: String, now: Date) async throws -> Bool
    /// Records a use of the key, unless one was recorded after `notBefore` (one write a minute
    /// per key, however many calls).
    func touchOperatorKey(id: String, now: Date, notBefore: Date) async throws
}
