import Foundation
import LatchkeyCore

extension PasskeyService {
    /// The session's wallet's passkeys, oldest first.
    /// - Throws: `factor_not_offered` (404) when the issuer does not enrol passkeys.
    public func passkeys(of principal: Principal) async throws -> [PasskeyRecord] {
        try rules.requireEnrollable(.passkey)
        return try await store.passkeys(userID: principal.userID)
    }

    /// Renames a passkey of the session's wallet (an everyday edit: any session).
    /// - Throws: `factor_not_offered` (404), `invalid_field` (400, `name`) for a name
    ///   `checkedName` refuses, `account_locked` (424) for a wallet an operator locked,
    ///   `factor_not_enrolled` (404, `passkeyId`) for a passkey the wallet does not have.
    public func rename(_ id: String, to name: String, of principal: Principal) async throws -> PasskeyRecord {
        try rules.requireEnrollable(.passkey)
        let name = try Self.checkedName(name)
        if try await principal.user().locked { throw DomainError.accountLocked }
        guard let renamed = try await store.renamePasskey(id: id, userID: principal.userID, name: name) else {
            throw DomainError(.factorNotEnrolled, field: "passkeyId")
        }
        return renamed
    }

    /// Removes a passkey of the session's wallet from a privileged session, with the owner's
    /// security notice in the same transaction and `factor.removed` recorded. The issuer's
    /// last-factor rule applies (`FactorRules.requireRemovable`): the last factor that answers
    /// the MFA prompt stays while `issuer.factors.required`, decided in the removal's
    /// transaction (`FactorInventoryStore.removeFactor`), so concurrent removals cannot both pass.
    /// - Throws: `factor_not_offered` (404), `session_refresh_required` (403), `account_locked`
    ///   (424) for a wallet an operator locked, `factor_not_enrolled` (404, `passkeyId`),
    ///   `last_factor` (409).
    public func remove(_ id: String, of principal: Principal, caller: Caller) async throws {
        try rules.requireEnrollable(.passkey)
        let time = now()
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: time)
        let store = self.store.recording(into: caller.audit)
        let user = try await principal.user()
        if user.locked { throw DomainError.accountLocked }
        let inventory = try await store.factorInventory(userID: user.id)
        guard inventory.factor(id: id)?.kind == .passkey else { throw DomainError(.factorNotEnrolled, field: "passkeyId") }
        let rules = self.rules
        try rules.requireRemovable(id, from: inventory)
        audit(.factorRemoved, user: user.id, deviceID: principal.deviceID, details: ["kind": FactorKind.passkey.rawValue, "id": id],
              for: caller)
        guard try await store.removeFactor(userID: user.id, id: id,
                                           messages: try outbox.securityNotice(.passkeys, to: user, answering: caller, at: time),
                                           check: { try rules.requireRemovable(id, from: $0) })
        else { throw DomainError(.factorNotEnrolled, field: "passkeyId") }
    }
}
