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
    /// - Throws: `factor_not_offered` (404), `invalid_field` (400, `name`) for a name that is
    ///   blank or has control characters, `factor_not_enrolled` (404, `passkeyId`) for a passkey
    ///   the wallet does not have.
    public func rename(_ id: String, to name: String, of principal: Principal) async throws -> PasskeyRecord {
        try rules.requireEnrollable(.passkey)
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            let field = "name"
            throw DomainError.invalidField(field, "\(field) must not be empty.")
        }
        guard let renamed = try await store.renamePasskey(id: id, userID: principal.userID, name: trimmed) else {
            throw DomainError(.factorNotEnrolled, field: "passkeyId")
        }
        return renamed
    }

    /// Removes a passkey of the session's wallet from a privileged session, with the owner's
    /// security notice in the same transaction and `factor.removed` recorded. The issuer's
    /// last-factor rule applies (`FactorRules.requireRemovable`): the last factor that answers
    /// the MFA prompt stays while `issuer.factors.required`.
    /// - Throws: `factor_not_offered` (404), `session_refresh_required` (403),
    ///   `factor_not_enrolled` (404, `passkeyId`), `last_factor` (409).
    public func remove(_ id: String, of principal: Principal, caller: Caller) async throws {
        try rules.requireEnrollable(.passkey)
        let time = now()
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: time)
        let store = self.store.recording(into: caller.audit)
        let inventory = try await store.factorInventory(userID: principal.userID)
        guard inventory.factor(id: id)?.kind == .passkey else { throw DomainError(.factorNotEnrolled, field: "passkeyId") }
        try rules.requireRemovable(.passkey, remaining: inventory.kinds(without: id))
        let user = try await principal.user()
        audit(.factorRemoved, user: user.id, deviceID: principal.deviceID, details: ["kind": FactorKind.passkey.rawValue, "id": id],
              for: caller)
        guard try await store.removePasskey(id: id, userID: user.id,
                                            messages: try outbox.securityNotice(.passkeys, to: user, answering: caller, at: time))
        else { throw DomainError(.factorNotEnrolled, field: "passkeyId") }
    }
}
