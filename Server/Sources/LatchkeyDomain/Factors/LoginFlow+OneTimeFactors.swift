import Foundation
import LatchkeyCore

extension LoginFlow {
    /// Checks an authenticator app's code answering the MFA prompt for `user`: a code of the
    /// confirmed app's step before, at or after the current one, later than the last step it
    /// accepted; that step is spent at once (one conditional update, so a code is accepted once
    /// across replicas). Wrong and spent codes count toward the smart lockout of unlinked devices
    /// like a wrong MFA answer. Audited as `factor.used`.
    /// Throws `DomainError.wrongCredentials` when it is wrong or spent.
    package func checkTOTPAtPrompt(_ code: String, user: UserRecord, deviceID: String, hasher: SecretHasher,
                                   caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        let app = try await store.totpFactor(userID: user.id)
        let time = now()
        // No hash is run for a code, so a refusal while unlinked devices are locked out spends nothing either.
        try await verifier.check(user: user, deviceID: nil, factor: .totp, caller: caller, burn: {}) { _ in
            guard let app, app.confirmedAt != nil,
                  let step = TOTPCheck(secret: try hasher.profileFieldCipher.open(app.sealedSecret)).matchingStep(code, now: time)
            else { return .wrongTOTPCode }
            return try await store.acceptTOTPStep(userID: user.id, step: step, now: time) ? nil : .replayedTOTPCode
        }
        audit(.factorUsed, user: user.id, deviceID: deviceID, details: ["kind": FactorKind.totp.rawValue], for: caller)
    }

    /// Checks and spends a recovery code answering the MFA prompt for `user`: the unused code at
    /// the position the code names is checked against its hash (one hash, like any credential),
    /// then spent by one conditional update, which also queues the customer's security notice.
    /// A malformed, unknown or used code costs the same hash. Wrong codes count toward the smart
    /// lockout of unlinked devices like a wrong MFA answer. Audited as `factor.used` with the
    /// codes left.
    /// Throws `DomainError.wrongCredentials` when it is wrong or used.
    package func checkRecoveryCodeAtPrompt(_ code: String, user: UserRecord, deviceID: String, hasher: SecretHasher,
                                           caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        let parsed = RecoveryCode.parse(code)
        let unused = try await store.unusedRecoveryCodes(userID: user.id)
        let stored = parsed.flatMap { parsed in unused.first { $0.position == parsed.position } }
        let time = now()
        let remaining = max(0, unused.count - 1)
        try await verifier.check(user: user, deviceID: nil, factor: .recoveryCode, caller: caller,
                                 burn: { try await hasher.burn(code) }) { cancelled in
            guard try await verifier.verify(parsed?.normalized ?? code, against: stored?.codeHash, hasher: hasher, cancelled: cancelled),
                  let stored
            else { return .wrongRecoveryCode }
            let notice = try outbox.securityNotice(.recoveryCodeUsed, to: user, answering: caller, remaining: remaining, at: time)
            return try await store.useRecoveryCode(userID: user.id, position: stored.position, codeHash: stored.codeHash, now: time,
                                                 messages: notice)
                ? nil : .wrongRecoveryCode
        }
        audit(.factorUsed, user: user.id, deviceID: deviceID,
              details: ["kind": FactorKind.recoveryCode.rawValue, "remaining": String(remaining)], for: caller)
    }
}
