import Foundation

/// Operators' API keys for the admin API (`latchkey operators keys …`): made with a role and an
/// expiry, shown once, stored as digests, revocable; a key's use is recorded to the minute.
/// A key is `lkop_<id>_<secret>`: the id names it in lists and in the audit trail, the 256-bit
/// secret is what proves it, and only the SHA-256 digest of the whole key is stored.
public struct OperatorKeys: Sendable {
    public typealias Store = OperatorKeyStore & AuditStore
    package let store: any Store
    package let now: @Sendable () -> Date
    /// The longest a key may live, and the default: rotation is the norm.
    public static let maximumDays = 366
    public static let defaultDays = 90
    /// How often a key's last use is written (once a minute, however many calls).
    public static let lastUsedGranularity: TimeInterval = 60

    public init(store: any Store, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// A new key for `name` with `role`, expiring after `days` (1…`maximumDays`): its record and
    /// the key itself, which is shown this once. Recorded in the audit trail (without the key).
    /// Throws `OperatorError.invalidKeyRequest` for an empty name or days out of range.
    public func create(name: String, role: OperatorRole, days: Int = defaultDays) async throws -> (record: OperatorKeyRecord, key: String) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        // It goes into `keys list`'s columns and every event's `operator`: no tab, line break or other control.
        guard !name.isEmpty, name.count <= 100, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control
            || $0.properties.generalCategory == .format || $0.properties.generalCategory == .lineSeparator
            || $0.properties.generalCategory == .paragraphSeparator }) else {
            throw OperatorError.invalidKeyRequest("The name must be 1 to 100 printable characters.")
        }
        guard (1...Self.maximumDays).contains(days) else {
            throw OperatorError.invalidKeyRequest("A key lives 1 to \(Self.maximumDays) days.")
        }
        let time = now()
        let id = String(SecureRandom.identifier().replacingOccurrences(of: "-", with: "").prefix(16))
        let key = "lkop_\(id)_\(SecureRandom.token())"
        let record = OperatorKeyRecord(id: id, name: name, role: role, digest: SecureRandom.digest(key), createdAt: time,
                                       expiresAt: time.addingTimeInterval(TimeInterval(days) * 86_400))
        try await audited(.keyCreated(id: id, role: role, name: name)) { store in try await store.createOperatorKey(record) }
        return (record, key)
    }

    /// Every key, newest first (digests only).
    public func list() async throws -> [OperatorKeyRecord] { try await store.operatorKeys() }

    /// Revokes a key at once on every replica. Throws `OperatorError.unknownKey` (recorded as a
    /// failed command: nothing was revoked).
    public func revoke(id: String) async throws {
        guard try await store.operatorKeys().contains(where: { $0.id == id && $0.revokedAt == nil }) else {
            try await AuditTrail.run(actor: .operator, store: store) { trail in
                trail.record(.operatorCommand, user: nil, outcome: .failure,
                             details: OperatorCommand.keyRevoked(id: String(id.prefix(64))).details, at: now())
            }
            throw OperatorError.unknownKey(id)
        }
        try await audited(.keyRevoked(id: id)) { store in _ = try await store.revokeOperatorKey(id: id, now: now()) }
    }

    /// The usable key a call presents (`Authorization: Bearer lkop_…`), its use recorded; nil for
    /// anything else — unknown, revoked, expired or not a key at all — without saying which.
    public func authenticate(_ presented: String) async throws -> OperatorKeyRecord? {
        guard presented.hasPrefix("lkop_"), presented.utf8.count <= 200 else { return nil }
        let time = now()
        guard let record = try await store.operatorKey(digest: SecureRandom.digest(presented)), record.isUsable(at: time) else {
            return nil
        }
        if record.lastUsedAt.map({ time.timeIntervalSince($0) >= Self.lastUsedGranularity }) ?? true {
            try await store.touchOperatorKey(id: record.id, now: time, notBefore: time.addingTimeInterval(-Self.lastUsedGranularity))
        }
        return record
    }

    private func audited(_ command: OperatorCommand, _ change: (any Store) async throws -> Void) async throws {
        try await AuditTrail.run(actor: .operator, store: store) { trail in
            trail.record(.operatorCommand, user: nil, details: command.details, at: now())
            try await change(store.recording(into: trail))
        }
    }
}
