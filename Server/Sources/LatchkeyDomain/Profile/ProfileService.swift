import Foundation
import LatchkeyCore

/// The profile and credential calls of the enrollment module: the customer record, password,
/// passcode and MFA-answer changes, and the expired-password change. A forgotten credential's
/// reset is `ResetPortalService`'s. Knows no HTTP.
public struct ProfileService: Sendable {
    /// What profile calls and credential changes read and write.
    public typealias Store = UserStore & AttemptStore & SessionStore & CredentialStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Builds the links, notices and security notices of changes.
    package let outbox: OutboxWriter
    /// Encrypts the stored values of the fields the issuer marks `pciEncryptionRequired`.
    package let fields: ProfileFieldCipher
    /// Checks current credentials (rate limit, lockout) before a change.
    package let verifier: CredentialVerifier
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date

    /// The logged-in user (`PDCustomer`).
    public func customer(_ principal: Principal) async throws -> Customer {
        let user = try await principal.user()
        let stored = try EnrollmentService.StoredProfile(of: user, opening: fields)
        return Customer(customerUri: EnrollmentService.customerURI(user.id), customerIdentification: user.id,
                        externalId: user.externalId, active: user.status == .active, firstName: user.firstName,
                        lastName: user.lastName, username: user.email.isEmpty ? user.phone ?? "" : user.email,
                        lastModifiedDate: user.updatedAt,
                        contactInformation: ContactInformation(email: user.email.isEmpty ? nil : user.email, phone: user.phone,
                                                               addressInformation: stored.addressInformation),
                        additionalCustomerInformation: stored.additionalCustomerInformation)
    }

    /// `updateUserPassword`: 403 not logged in, 424 locked, 400 missing field, 417 confirmation,
    /// 419 rules, 416 wrong current (421 once the wallet threshold is reached), 406 history. The
    /// user's other sessions and device tokens are revoked.
    public func updatePassword(_ principal: Principal, old: String, new: String, confirm: String, caller: Caller) async throws {
        try await admitted(2 + issuer.passwordHistory, for: caller) { hasher in
            try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
            let (session, user) = (principal.session, try await principal.user())
            try await changePassword(user, current: old, currentField: "oldPassword", new: new, confirm: confirm,
                                     deviceID: session.deviceID, keepSession: session.digest, onlyExpired: false, hasher: hasher, caller: caller)
        }
    }

    /// `changeExpiredPassword`: without a session, by email and the expired current password. A
    /// password that has not expired is refused (400 `password_not_expired`) once the current
    /// password is checked, so the call neither bypasses a logged-in change nor tells who has a wallet.
    /// From a linked device wrong passwords count as the spec says (416, then 421); from any other
    /// device under the smart lockout.
    public func changeExpiredPassword(email: String, expired: String, new: String, confirm: String,
                                      caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        let deviceID = caller.device.deviceID
        try await admitted(2 + issuer.passwordHistory, for: caller) { hasher in
            if email.isEmpty { throw DomainError.invalidField("email", "email is required.") }
            guard let user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email)) else {
                try await hasher.burn(expired)
                throw DomainError.wrongCurrentPassword
            }
            try await changePassword(user, current: expired, currentField: "expiredPassword", new: new, confirm: confirm,
                                     deviceID: deviceID, keepSession: nil, onlyExpired: true, hasher: hasher, caller: caller)
        }
    }

    /// `updateUserPasscode`: 403, 424, 400, 417, 420, 416 wrong current PIN (421 at the threshold).
    /// The user's other sessions and device tokens are revoked, as for a password change.
    public func updatePasscode(_ principal: Principal, old: String, new: String, confirm: String, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        try await admitted(2, for: caller) { hasher in
            try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
            let (session, user) = (principal.session, try await principal.user())
            if user.locked { throw DomainError.accountLocked }
            if old.isEmpty { throw DomainError.invalidField("oldPasscode", "oldPasscode is required.") }
            if new != confirm { throw DomainError.confirmationMismatch(field: "confirmNewPasscode") }
            try issuer.passcode.validate(new, field: "newPasscode")
            try await verifier.check(old, against: user.passcodeHash, user: user, deviceID: session.deviceID, source: .session,
                                     wrong: .wrongCurrentPIN, hasher: hasher, caller: caller)
            let time = now()
            audit(.passcodeChanged, user: user.id, deviceID: session.deviceID, for: caller)
            try await store.updatePasscode(userID: user.id, hash: try await hasher.hash(new), now: time, keepSession: session.digest,
                                           messages: try outbox.securityNotice(.passcode, to: user, answering: caller, at: time))
        }
    }

    /// `updateMFAAnswers`: exactly the issuer's number of answers to pool questions, no empty
    /// ones; the previous answers are gone afterwards.
    public func updateMFAAnswers(_ principal: Principal, answers: [String: String], caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        try await admitted(answers.count, for: caller) { hasher in
            try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
            let user = try await principal.user()
            if user.locked { throw DomainError.accountLocked }
            try issuer.enrollmentRules.validateMFAAnswers(answers, field: "mfaAnswers")
            let time = now()
            audit(.mfaAnswersChanged, user: user.id, deviceID: principal.session.deviceID, for: caller)
            try await store.replaceMFAAnswers(userID: user.id, answers: try await hasher.hashAnswers(answers, mfa: issuer.mfa), now: time,
                                              messages: try outbox.securityNotice(.securityQuestions, to: user, answering: caller, at: time))
        }
    }

    private func changePassword(_ user: UserRecord, current: String, currentField: String, new: String, confirm: String,
                                deviceID: String?, keepSession: String?, onlyExpired: Bool, hasher: SecretHasher, caller: Caller) async throws {

        let store = self.store.recording(into: caller.audit)
        // Without a session the lock is told only after the password, like every other status.
        if user.locked && !onlyExpired { throw DomainError.accountLocked }
        if current.isEmpty { throw DomainError.invalidField(currentField, "\(currentField) is required.") }
        if new != confirm { throw DomainError.confirmationMismatch(field: "confirmNewPassword") }
        try issuer.validateNewPassword(new, field: "newPassword")
        try await verifier.check(current, against: user.passwordHash, user: user, deviceID: deviceID,
                                 source: keepSession == nil ? .login : .session, wrong: .wrongCurrentPassword, hasher: hasher, caller: caller)
        if user.locked { throw DomainError.accountLocked }
        if onlyExpired, !(issuer.passwordExpiry(of: user).map { $0 <= now() } ?? false) {
            throw DomainError(.passwordNotExpired)
        }
        if try await verifier.recentlyUsed(new, by: user, hasher: hasher) { throw DomainError.passwordReused }
        let time = now()
        audit(.passwordChanged, user: user.id, reason: onlyExpired ? .passwordExpired : .passwordChanged, deviceID: deviceID, for: caller)
        try await store.updatePassword(userID: user.id, hash: try await hasher.hash(new), now: time,
                                       keep: max(0, issuer.passwordHistory - 1), keepSession: keepSession,
                                       messages: try outbox.securityNotice(.password, to: user, answering: caller, at: time))
    }
}
