import Foundation
import LatchkeyCore

extension OneTimeFactorService {
    /// Makes `RecoveryCode.count` new recovery codes, replacing every earlier one (used or not),
    /// and answers them: they are shown this once and stored only as password hashes (one each,
    /// so the call is admitted for that many hashes).
    /// - Throws: `factorNotOffered` (404), `sessionRefreshRequired` (403), `accountLocked` (424),
    ///   `overloaded` (503).
    public func generateRecoveryCodes(_ principal: Principal, caller: Caller) async throws -> [String] {
        let store = self.store.recording(into: caller.audit)
        try rules.requireEnrollable(.recoveryCode)
        return try await admitted(RecoveryCode.count, for: caller) { hasher in
            try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
            let user = try await principal.user()
            if user.locked { throw DomainError.accountLocked }
            let codes = RecoveryCode.generate()
            let hashes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (position, code) in codes.enumerated() {
                    guard let normalized = RecoveryCode.parse(code)?.normalized else { continue }
                    group.addTask { (position, try await hasher.hash(normalized)) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            let time = now()
            try await store.replaceRecoveryCodes(userID: user.id, hashes: codes.indices.compactMap { hashes[$0] }, now: time,
                                                 messages: try outbox.securityNotice(.recoveryCodes, to: user, answering: caller, at: time))
            audit(.factorEnrolled, user: user.id, deviceID: principal.session.deviceID,
                  details: ["kind": FactorKind.recoveryCode.rawValue], for: caller)
            return codes
        }
    }

    /// Removes every recovery code. Codes that are the wallet's last factor answering the MFA
    /// prompt stay while the issuer requires one (decided in the removal's transaction,
    /// `FactorInventoryStore.removeFactor`); codes all used are no factor any more and go.
    /// - Throws: `factorNotOffered` (404), `sessionRefreshRequired` (403), `accountLocked` (424),
    ///   `factorNotEnrolled` (404) without codes, `lastFactor` (409).
    public func removeRecoveryCodes(_ principal: Principal, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        try rules.requireEnrollable(.recoveryCode)
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
        let user = try await principal.user()
        if user.locked { throw DomainError.accountLocked }
        let id = EnrolledFactor.recoveryCodesID
        let inventory = try await store.factorInventory(userID: user.id)
        guard inventory.factor(id: id) != nil else { throw DomainError(.factorNotEnrolled) }
        let rules = self.rules
        try rules.requireRemovable(id, from: inventory)
        let time = now()
        guard try await store.removeFactor(userID: user.id, id: id,
                                           messages: try outbox.securityNotice(.recoveryCodes, to: user, answering: caller, at: time),
                                           check: { try rules.requireRemovable(id, from: $0) })
        else { throw DomainError(.factorNotEnrolled) }
        audit(.factorRemoved, user: user.id, deviceID: principal.session.deviceID,
              details: ["kind": FactorKind.recoveryCode.rawValue], for: caller)
    }
}
