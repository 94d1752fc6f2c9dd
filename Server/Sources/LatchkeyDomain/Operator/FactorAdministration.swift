import Foundation
import LatchkeyCore

/// Operators' view of a wallet's second factors: the list, and the removal of a lost one (a
/// passkey of a phone that is gone, the authenticator app, the recovery codes). Recorded by the
/// `OperatorTrail` like every operator call. Knows no HTTP; refuses with `DomainError`.
///
/// The issuer's last-factor rule (`issuer.factors.required`) binds the customer, not support: a
/// customer who lost the phone with their only passkey asks support to remove it. A new phone is
/// then prompted with what the wallet still has that the issuer takes at the prompt (by default
/// its questions); with nothing left there it is refused, and the customer enrols a factor from a
/// phone still linked (a password reset links no phone). The customer is told by a security
/// notice, so a removal they did not ask for does not go unseen.
public struct FactorAdministration: Sendable {
    public typealias Store = UserStore & PasskeyStore & OneTimeFactorStore & FactorInventoryStore
    package let store: any Store
    package let trail: OperatorTrail
    /// Builds the customer's security notice.
    package let outbox: OutboxWriter
    package let now: @Sendable () -> Date

    public init(store: any Store, trail: OperatorTrail, outbox: OutboxWriter, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.trail = trail
        self.outbox = outbox
        self.now = now
    }

    /// The user's factors (`listUserFactors`), as the wallet lists them.
    /// - Throws: `DomainError(.unknownUser)`.
    public func factors(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws -> FactorInventory {
        try await trail.recorded(.admin(.listUserFactors), user: user, call: call) { user, _ in
            try await store.factorInventory(userID: user.id)
        }
    }

    /// Removes the factor `id` (`removeUserFactor`): a passkey's id, `totp` or `recovery-codes`;
    /// records `factor.removed` (reason `removed_by_operator`) and queues the customer's
    /// security notice in the removal's transaction.
    /// - Throws: `DomainError(.unknownUser)`; `DomainError(.factorNotEnrolled)` (404, `factorId`)
    ///   for a factor the wallet does not have, or its questions (which a reset replaces).
    public func remove(_ user: OperatorTrail.UserReference, factor id: String, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.removeUserFactor), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            // Asked first: a write carries the call's event, so a refusal must come before it.
            guard let factor = try await store.factorInventory(userID: user.id).factor(id: id), factor.kind != .question else {
                throw DomainError(.factorNotEnrolled, field: "factorId")
            }
            let time = now()
            var details = ["kind": factor.kind.rawValue]
            if factor.kind == .passkey { details["id"] = id }
            trail.record(.factorRemoved, user: user.id, reason: .removedByOperator, details: details, at: time)
            let change: SecurityChange = switch factor.kind {
            case .passkey: .passkeys
            case .totp: .authenticatorApp
            case .recoveryCode: .recoveryCodes
            case .question: throw DomainError(.factorNotEnrolled, field: "factorId")
            }
            // In the transaction that serialises the wallet's removals, so a customer's removal
            // running meanwhile decides the last-factor rule on what this one leaves.
            let removed = try await store.removeFactor(userID: user.id, id: id, messages: try notice(change, to: user, at: time),
                                                       check: { _ in })
            if !removed { throw DomainError(.factorNotEnrolled, field: "factorId") }
        }
    }

    /// The customer's security notice, in the wallet's recorded languages.
    private func notice(_ change: SecurityChange, to user: UserRecord, at time: Date) throws -> [OutboxMessage] {
        try outbox.securityNotice(change, to: user, languages: user.languagePreference, at: time)
    }
}
