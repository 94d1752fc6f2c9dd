import Foundation
import LatchkeyCore

/// A wallet's authenticator app (RFC 6238 TOTP, `TOTPCheck`) and recovery codes (`RecoveryCode`):
/// enrolling, confirming, regenerating and removing them from a session. Their use at the MFA
/// prompt is the login flow's (`LoginFlow.checkTOTPAtPrompt`, `checkRecoveryCodeAtPrompt`).
/// Every change is audited (`factor.enrolled`, `factor.removed`) and the customer gets a security
/// notice written in its transaction. Knows no HTTP.
public struct OneTimeFactorService: Sendable {
    /// What the calls read and write: the wallet, the lockout counters of a confirmation, the
    /// factor tables and the inventory the last-factor rule reads.
    public typealias Store = UserStore & AttemptStore & DeviceStore & CredentialStore & OneTimeFactorStore & FactorInventoryStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Writes the security notices of the changes.
    package let outbox: OutboxWriter
    /// Seals the authenticator's secret at rest (the pepper's field cipher).
    package let fields: ProfileFieldCipher
    /// Bounds wrong confirmation codes like wrong current credentials.
    package let verifier: CredentialVerifier
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date

    public init(store: any Store, issuer: IssuerSettings, outbox: OutboxWriter, fields: ProfileFieldCipher, verifier: CredentialVerifier,
                audit: AuditRecorder, admitted: HashAdmission, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.issuer = issuer
        self.outbox = outbox
        self.fields = fields
        self.verifier = verifier
        self.audit = audit
        self.admitted = admitted
        self.now = now
    }

    /// What an authenticator app is set up with: the `otpauth://` URI (its QR code) and the
    /// secret in base32 groups for typing in.
    public struct TOTPEnrollment: Sendable, Equatable {
        public var uri: String
        public var secret: String
    }

    var rules: FactorRules { FactorRules(issuer.factors) }

    /// Starts enrolling an authenticator app: a new secret (160 random bits), sealed and stored
    /// pending until a first code confirms it (`confirmTOTP`); a pending one is replaced.
    /// - Throws: `factorNotOffered` (404) when the issuer does not offer it, `sessionRefreshRequired`
    ///   (403) without a recent login, `accountLocked` (424), `factorAlreadyEnrolled` (409) when the
    ///   wallet's app is confirmed (remove it first).
    public func enrollTOTP(_ principal: Principal, caller: Caller) async throws -> TOTPEnrollment {
        let store = self.store.recording(into: caller.audit)
        try rules.requireEnrollable(.totp)
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
        let user = try await principal.user()
        if user.locked { throw DomainError.accountLocked }
        let totp = TOTPCheck(secret: TOTPCheck.newSecret())
        guard try await store.savePendingTOTP(userID: user.id, sealedSecret: try fields.seal(totp.secret), now: now()) else {
            throw DomainError(.factorAlreadyEnrolled)
        }
        let account = user.email.isEmpty ? user.phone ?? user.id : user.email
        return TOTPEnrollment(uri: totp.uri(account: account, issuer: issuer.name), secret: totp.manualEntry)
    }

    /// Confirms the pending authenticator app with a code of it (the step before or after the
    /// current one accepted for clock drift); that step is spent. A wrong code counts toward the
    /// lockout like a wrong current credential.
    /// - Throws: `factorNotOffered` (404), `accountLocked` (424), `factorNotEnrolled` (404) with
    ///   none pending, `factorAlreadyEnrolled` (409) when it is confirmed already, `invalidField("code")` (400)
    ///   for a missing or wrong code, what the lockout throws (423 at the threshold).
    public func confirmTOTP(_ principal: Principal, code: String, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        try rules.requireEnrollable(.totp)
        let field = "code"
        if code.isEmpty { throw DomainError.invalidField(field, "\(field) is required.") }
        let user = try await principal.user()
        if user.locked { throw DomainError.accountLocked }
        guard let pending = try await store.totpFactor(userID: user.id) else { throw DomainError(.factorNotEnrolled) }
        if pending.confirmedAt != nil { throw DomainError(.factorAlreadyEnrolled) }
        let totp = TOTPCheck(secret: try fields.open(pending.sealedSecret))
        let time = now()
        var step: Int64?
        try await verifier.check(user: user, deviceID: principal.session.deviceID, source: .session, factor: .totp,
                                 wrong: DomainError.invalidField(field, "The code is not correct."), caller: caller, burn: {}) { _ in
            step = totp.matchingStep(code, now: time)
            return step == nil ? .wrongTOTPCode : nil
        }
        guard let step,
              try await store.confirmTOTP(userID: user.id, sealedSecret: pending.sealedSecret, step: step, now: time,
                                          messages: try outbox.securityNotice(.authenticatorApp, to: user, answering: caller, at: time))
        else { throw DomainError(.factorNotEnrolled) }
        audit(.factorEnrolled, user: user.id, deviceID: principal.session.deviceID, details: ["kind": FactorKind.totp.rawValue], for: caller)
    }

    /// Removes the authenticator app, confirmed or pending. A confirmed one that is the wallet's
    /// last factor answering the MFA prompt stays while the issuer requires one (decided in the
    /// removal's transaction, `FactorInventoryStore.removeFactor`).
    /// - Throws: `factorNotOffered` (404), `sessionRefreshRequired` (403), `accountLocked` (424),
    ///   `factorNotEnrolled` (404) without one, `lastFactor` (409).
    public func removeTOTP(_ principal: Principal, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        try rules.requireEnrollable(.totp)
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
        let user = try await principal.user()
        if user.locked { throw DomainError.accountLocked }
        guard let app = try await store.totpFactor(userID: user.id) else { throw DomainError(.factorNotEnrolled) }
        guard app.confirmedAt != nil else {
            // A pending app was never a factor: it goes without a notice.
            _ = try await store.removeTOTP(userID: user.id, messages: [])
            return
        }
        let rules = self.rules
        try rules.requireRemovable(EnrolledFactor.totpID, from: try await store.factorInventory(userID: user.id))
        let time = now()
        guard try await store.removeFactor(userID: user.id, id: EnrolledFactor.totpID,
                                           messages: try outbox.securityNotice(.authenticatorApp, to: user, answering: caller, at: time),
                                           check: { try rules.requireRemovable(EnrolledFactor.totpID, from: $0) })
        else { throw DomainError(.factorNotEnrolled) }
        audit(.factorRemoved, user: user.id, deviceID: principal.session.deviceID, details: ["kind": FactorKind.totp.rawValue], for: caller)
    }
}
