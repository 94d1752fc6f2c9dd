import Foundation
import LatchkeyCore

/// Operators' API keys, whichever channel asks (the admin API's `admin` role, `latchkey operators
/// keys`): list, create (shown once) and revoke through `OperatorKeys`, each call also an event of
/// the `OperatorTrail` naming who made it. Knows no HTTP; refuses with `DomainError`.
public struct OperatorKeyAdministration: Sendable {
    package let keys: OperatorKeys
    package let trail: OperatorTrail

    public init(keys: OperatorKeys, trail: OperatorTrail) {
        self.keys = keys
        self.trail = trail
    }

    /// Every key, newest first (never a secret or digest on the wire).
    public func operatorKeys(for call: OperatorCall) async throws -> [OperatorKeyRecord] {
        try await trail.recorded(.admin(.listOperatorKeys), user: nil, call: call) { try await keys.list() }
    }

    /// A new key, shown this once. Throws `DomainError(.invalidField)` naming `name` or `days`.
    public func createOperatorKey(name: String, role: OperatorRole, days: Int?,
                                  for call: OperatorCall) async throws -> (record: OperatorKeyRecord, key: String) {
        let days = days ?? OperatorKeys.defaultDays
        guard (1...OperatorKeys.maximumDays).contains(days) else {
            throw DomainError.invalidField("days", "A key lives 1 to \(OperatorKeys.maximumDays) days.")
        }
        return try await trail.recorded(.admin(.createOperatorKey), user: nil, call: call) {
            do {
                return try await keys.create(name: name, role: role, days: days)
            } catch OperatorError.invalidKeyRequest(let reason) {
                throw DomainError.invalidField("name", LocalizableText(verbatim: reason))
            }
        }
    }

    /// Revokes a key at once on every replica. Throws `DomainError(.unknownOperatorKey)`.
    public func revokeOperatorKey(id: String, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.revokeOperatorKey), user: nil, call: call) {
            do {
                try await keys.revoke(id: id)
            } catch OperatorError.unknownKey {
                throw DomainError(.unknownOperatorKey, field: "keyId")
            }
        }
    }
}
