import Foundation
import LatchkeyCore

/// Checks a user's credential the one way every path must: the per-account rate limit, an attempt
/// reserved in the database before any hash runs, the lockout on failure, the attempt given back
/// on success and the hash upgraded to the configured parameters. Logins, credential changes, the
/// Kratos-compatible login and the reset portal all check through it.
public struct CredentialVerifier: Sendable {
    /// The counters and credentials a check reads and moves.
    public typealias Store = UserStore & AttemptStore & DeviceStore & CredentialStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// The per-account rate limit (shared with the edge and the portal).
    package let throttle: Throttle
    package let audit: AuditRecorder
    package let now: @Sendable () -> Date

    /// Where a credential check comes from.
    package enum AttemptSource {
        /// A login step: from a linked device the spec's lockout, from any other the smart lockout.
        case login
        /// The owner's session (a credential change): always the spec's lockout.
        case session
    }

    /// Checks a secret against a hash under the lockout rules: an attempt is reserved before the
    /// hash is computed, a failure may deactivate the wallet (421) or the device (423), a success
    /// gives the attempt back (the counts reset only when a login completes, in `startSession`).
    /// Sessions of what gets deactivated are revoked. A login from a device not linked to the
    /// wallet is checked under the smart lockout instead (`checkUnlinked`).
    /// A right credential whose hash was made with weaker parameters than the configured ones is
    /// hashed again and stored as `credential` (DESIGN §6: upgraded at the next successful check).
    /// `factor` names what was checked in the audit trail (`password`, `pin`, `mfa_answer`);
    /// `hasher` is the operation's admitted one (`HashAdmission`).
    package func check(_ secret: String, against hash: String?, user: UserRecord, deviceID: String?, source: AttemptSource = .login,
               factor: CredentialFactor = .password, wrong: DomainError = .wrongCredentials,
               credential: StoredCredential? = nil, hasher: SecretHasher, caller: Caller) async throws {
        try await check(user: user, deviceID: deviceID, source: source, factor: factor, wrong: wrong, caller: caller,
                        burn: { try await hasher.burn(secret) }) { cancelled in
            try await verify(secret, against: hash, hasher: hasher, cancelled: cancelled) ? nil : factor.wrong
        }
        try await upgrade(secret, hash: hash, user: user, credential: credential, hasher: hasher)
    }

    /// The lockout rules of `check` around any judgement of a secret, for secrets that are not
    /// checked against a stored hash (an authenticator app's code, a recovery code found by its
    /// position): the rate limit, the attempt reserved before `judge` runs, the lockout on failure
    /// and the attempt given back on success. `judge` answers nil for a right secret or the
    /// reason it is wrong (recorded in the trail); it is handed what gives the reserved attempt
    /// back when the client left before it could judge. `burn` spends, while unlinked devices are
    /// locked out, the work a judgement would have spent, so the refusal takes as long.
    package func check(user: UserRecord, deviceID: String?, source: AttemptSource = .login, factor: CredentialFactor,
                       wrong: DomainError = .wrongCredentials, caller: Caller, burn: () async throws -> Void,
                       judge: (_ cancelled: @escaping @Sendable () async throws -> Void) async throws -> AuditReason?) async throws {
        let store = self.store.recording(into: caller.audit)
        let failed = { (reason: AuditReason) in
            audit(source == .login ? .loginFailed : .credentialCheckFailed, user: user.id, outcome: .failure, reason: reason,
                  deviceID: deviceID, details: ["factor": factor.rawValue], for: caller)
        }
        if let wait = try await throttle.refusal("account:" + user.id, limit: throttle.settings.credentialAttemptsPerMinutePerAccount) {
            failed(.rateLimited)
            throw DomainError(.rateLimited, retryAfter: wait)
        }
        let linked: String?
        do { linked = try await linkedDevice(user: user, deviceID: deviceID) } catch let error as DomainError {
            failed(error.kind == .deviceSuspended ? .deviceSuspended : .deviceDeactivated)
            throw error
        }
        if linked == nil && source == .login {
            return try await checkUnlinked(user: user, wrong: wrong, failed: failed, caller: caller, burn: burn, judge: judge)
        }
        if user.status != .active {
            failed(.walletDeactivated)
            throw DomainError.walletDeactivated
        }
        let refusal: (AuditReason, DomainError)? = switch try await store.reserveAttempt(userID: user.id, deviceID: linked,
                                                                                   limits: issuer.attemptLimits) {
        case .reserved: nil
        case .walletLocked: (.walletDeactivated, DomainError.walletDeactivated)
        case .deviceLocked: (.deviceDeactivated, DomainError.deviceDeactivated)
        case .deviceSuspended: (.deviceSuspended, DomainError.deviceSuspended)
        case .exhausted: (.attemptsInFlight, DomainError.attemptsInFlight)
        }
        if let (reason, error) = refusal {
            failed(reason)
            throw error
        }
        if let reason = try await judge({ [store] in try await store.releaseAttempt(userID: user.id, deviceID: linked) }) {
            failed(reason)
            let outcome = try await store.recordFailure(userID: user.id, deviceID: linked, limits: issuer.attemptLimits, now: now())
            if outcome.walletDeactivated { throw DomainError.walletDeactivated }
            if outcome.deviceDeactivated { throw DomainError.deviceDeactivated }
            throw wrong
        }
        try await store.releaseAttempt(userID: user.id, deviceID: linked)
    }

    /// The smart lockout (Azure AD's, Keycloak's brute-force detection): failures from unlinked
    /// devices count apart from the owner's and lock out unlinked devices only, for a while; they
    /// never deactivate the wallet, end its sessions or touch its linked devices. Every refusal is
    /// `wrong` after the same hash work as for an unknown email, and the wallet's status is told
    /// only for the right credential, so no answer tells whether an email has a wallet.
    private func checkUnlinked(user: UserRecord, wrong: DomainError, failed: (AuditReason) -> Void, caller: Caller,
                               burn: () async throws -> Void,
                               judge: (_ cancelled: @escaping @Sendable () async throws -> Void) async throws -> AuditReason?) async throws {
        let store = self.store.recording(into: caller.audit)
        guard try await store.reserveUnlinkedAttempt(userID: user.id, limit: issuer.lockout.unlinkedThreshold, now: now()) else {
            failed(.unlinkedDevicesLocked)
            try await burn()
            throw wrong
        }
        if let reason = try await judge({ [store] in try await store.releaseUnlinkedAttempt(userID: user.id) }) {
            failed(reason)
            _ = try await store.recordUnlinkedFailure(userID: user.id, lockout: issuer.lockout, now: now())
            throw wrong
        }
        try await store.releaseUnlinkedAttempt(userID: user.id)
        if user.status != .active {
            failed(.walletDeactivated)
            throw DomainError.walletDeactivated
        }
    }

    /// Whether `secret` matches `hash`; without a hash (an SSO-only wallet) the same work is burnt.
    /// When the client left before the hash ran (`CancellationError`), `cancelled` gives the
    /// reserved attempt back: nothing was checked, so nothing counts.
    package func verify(_ secret: String, against hash: String?, hasher: SecretHasher,
                        cancelled: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        do {
            guard let hash else {
                try await hasher.burn(secret)
                return false
            }
            return try await hasher.verify(secret, against: hash)
        } catch is CancellationError {
            // A task of its own, which the cancellation does not reach.
            try await Task { try await cancelled() }.value
            throw CancellationError()
        }
    }

    private func upgrade(_ secret: String, hash: String?, user: UserRecord, credential: StoredCredential?,
                         hasher: SecretHasher) async throws {
        if let credential, let hash, hasher.needsUpgrade(hash) {
            try await store.upgradeHash(userID: user.id, credential: credential, hash: try await hasher.hash(secret))
        }
    }

    /// What a recovery answer was.
    package enum RecoveryAnswer { case right, wrong, questionGone }

    /// The MFA question to ask `user`: the pending one while it is live, so asking again (from any
    /// device, or through a new reset link) never draws an easier one; nil without answers.
    package func pendingQuestion(for user: UserRecord) async throws -> String? {
        let questions = try await store.mfaAnswers(userID: user.id).map(\.question)
        guard let proposal = questions.randomElement() else { return nil }
        let time = now()
        let staleBefore = time.addingTimeInterval(-TimeInterval(issuer.mfa.questionRotationHours) * 3600)
        let pending = try await store.pendingMFAQuestion(userID: user.id)
        if let pending, questions.contains(pending.question), pending.chosenAt >= staleBefore { return pending.question }
        let chosen = try await store.choosePendingMFAQuestion(
            userID: user.id, proposal: proposal, staleBefore: staleBefore,
            invalid: pending.flatMap { questions.contains($0.question) ? nil : $0.question }, now: time)
        return questions.contains(chosen) ? chosen : proposal
    }

    /// Checks the answer to one of the user's MFA questions on the reset portal. Recovery must keep
    /// working after a failure lockout (a completed reset lifts it), so a deactivated wallet or an
    /// exhausted count does not refuse the check; a wrong answer still counts toward the lockout
    /// whenever an attempt could be reserved. `questionGone` when the user no longer has the
    /// question (the answers changed since the link was sent); it counts as wrong.
    package func checkRecoveryAnswer(_ answer: String, question: String, user: UserRecord, hasher: SecretHasher, caller: Caller) async throws
        -> RecoveryAnswer {
        let store = self.store.recording(into: caller.audit)
        let reservation = try await store.reserveAttempt(userID: user.id, deviceID: nil, limits: issuer.attemptLimits)
        let stored = try await store.mfaAnswers(userID: user.id).first { $0.question == question }
        let verdict: RecoveryAnswer = if let stored {
            try await hasher.verify(issuer.mfa.normalize(answer), against: stored.answerHash) ? .right : .wrong
        } else { .questionGone }
        audit(.mfaAnswered, user: user.id, outcome: verdict == .right ? .success : .failure,
              reason: verdict == .right ? nil : .wrongMFAAnswer, details: ["question": question, "via": "reset_portal"], for: caller)
        guard reservation == .reserved else { return verdict }
        if verdict == .right {
            try await store.releaseAttempt(userID: user.id, deviceID: nil)
        } else {
            _ = try await store.recordFailure(userID: user.id, deviceID: nil, limits: issuer.attemptLimits, now: now())
        }
        return verdict
    }

    /// The device id when the device is linked to the user; refuses a suspended or deactivated one.
    package func linkedDevice(user: UserRecord, deviceID: String?) async throws -> String? {
        guard let deviceID, let device = try await store.device(userID: user.id, deviceID: deviceID) else { return nil }
        try Self.requireUsable(device)
        return deviceID
    }

    /// Refuses a suspended (503) or deactivated (423) device.
    package static func requireUsable(_ device: DeviceRecord) throws {
        switch device.status {
        case .suspended: throw DomainError.deviceSuspended
        case .deactivated: throw DomainError.deviceDeactivated
        default: break
        }
    }

    /// The checks after a right credential: email verification (418), app-instance verification
    /// (511) and password expiry (508).
    /// A login by phone number (`byEmail` false) does not need the email verified.
    package func requireVerified(_ user: UserRecord, byEmail: Bool = true) throws {
        if byEmail && issuer.emailVerificationRequired && !user.emailVerified { throw DomainError.emailNotVerified }
        if !user.appInstanceVerified { throw DomainError.appInstanceNotVerified }
        if let expiresAt = issuer.passwordExpiry(of: user), expiresAt <= now() { throw DomainError.passwordExpired }
    }
}

extension IssuerSettings {
    /// When the user's password expires; nil when passwords do not expire or the user has none (SSO).
    package func passwordExpiry(of user: UserRecord) -> Date? {
        guard passwordExpiryDays > 0, user.passwordHash != nil else { return nil }
        return (user.passwordUpdatedAt ?? user.createdAt).addingTimeInterval(TimeInterval(passwordExpiryDays) * 86_400)
    }
}
