import Foundation
import LatchkeyCore

/// Operator keys over the admin API (the `admin` role): as `latchkey operators keys`, each call
/// also an event naming the key that made it.
extension AdminService {
    private var keys: OperatorKeys { OperatorKeys(store: store, now: now) }

    /// Every key, newest first (never a secret or digest on the wire).
    public func operatorKeys(for call: OperatorCall) async throws -> [OperatorKeyRecord] {
        try await recorded(.admin(.listOperatorKeys), user: nil, call: call) { try await keys.list() }
    }

    /// A new key, shown this once. Throws `DomainError(.invalidField)` naming `name` or `days`.
    public func createOperatorKey(name: String, role: OperatorRole, days: Int?,
                                  for call: OperatorCall) async throws -> (record: OperatorKeyRecord, key: String) {
        let days = days ?? OperatorKeys.defaultDays
        guard (1...OperatorKeys.maximumDays).contains(days) else {
            throw DomainError.invalidField("days", "A key lives 1 to \(OperatorKeys.maximumDays) days.")
        }
        return try await recorded(.admin(.createOperatorKey), user: nil, call: call) {
            do {
                return try await keys.create(name: name, role: role, days: days)
            } catch OperatorError.invalidKeyRequest(let reason) {
                throw DomainError.invalidField("name", reason)
            }
        }
    }

    /// Revokes a key at once on every replica. Throws `DomainError(.unknownOperatorKey)`.
    public func revokeOperatorKey(id: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.revokeOperatorKey), user: nil, call: call) {
            do {
                try await keys.revoke(id: id)
            } catch OperatorError.unknownKey {
                throw DomainError(.unknownOperatorKey, field: "keyId")
            }
        }
    }
}
