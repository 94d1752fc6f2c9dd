import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The enrollment calls about the logged-in user's record and credentials. New credentials are
/// checked with the issuer's rules before anything is sent.
extension EnrollmentClient {
    /// The logged-in user's profile (`PDCustomer`).
    public func retrieveCustomer() async throws(LatchkeyError) -> Customer {
        try await call(.retrieveCustomer) { try await api.retrieveCustomer().ok.body.json }
    }

    /// `updateUserProfile`, with the spec's conventions (see `ProfileUpdate`); checked with the
    /// field metadata and MFA rules before sending. A new email takes effect once verified from
    /// the link sent to it; a change of a field the issuer marks `reverificationRequired` once
    /// confirmed from the link sent to the wallet's address (`FieldMetadata.reverificationRequired`
    /// tells a form which fields do that).
    /// - Returns: the server's message and what waits for verification.
    /// - Throws: `LatchkeyError` — a field the rules refuse (before sending), the server's refusal
    ///   (400 naming the field, 416 email in use, 418 no verified address for a confirmation), or
    ///   the transport's.
    @discardableResult
    public func updateUserProfile(_ update: ProfileUpdate) async throws(LatchkeyError) -> ProfileUpdateResult {
        let domain = ErrorDomain.updateUserProfile
        let rules = EnrollmentRules(mfa: try await retrieveMfaQuestionsWithMetadata(), metadata: try await retrieveProfileMetadata())
        do { try rules.validateUpdate(update) } catch { throw refusal(error, domain) }
        let body = Components.Schemas.UserProfileUpdate(
            firstName: update.firstName, lastName: update.lastName, email: update.email, phone: update.phone,
            externalId: update.externalId, password: update.password, passcode: update.passcode,
            mfaAnswers: update.mfaAnswers.map { .init(additionalProperties: $0) },
            additionalCustomerInformation: update.additionalCustomerInformation.map { .init(additionalProperties: $0) },
            addressInformation: update.addressInformation.map {
                .init(state: $0.state, country: $0.country, addressLine1: $0.addressLine1, addressLine2: $0.addressLine2,
                      city: $0.city, zipCode: $0.zipCode)
            })
        let response = try await call(domain) { try await api.updateUserProfile(body: .json(body)).ok.body.json }
        return ProfileUpdateResult(message: response.message, pendingVerification: response.pendingVerification)
    }

    /// `updateUserPassword`. The user's other sessions and device tokens end.
    @discardableResult
    public func updateUserPassword(oldPassword: String, newPassword: String, confirmNewPassword: String)
        async throws(LatchkeyError) -> String {
        let domain = ErrorDomain.updateUserCredentials
        try await checkNewPassword(newPassword, confirm: confirmNewPassword, domain: domain)
        let response: Components.Schemas.MessageResponse = try await call(domain) {
            try await api.updateUserPassword(body: .json(.init(oldPassword: oldPassword, newPassword: newPassword,
                                                               confirmNewPassword: confirmNewPassword))).ok.body.json
        }
        return response.message
    }

    /// `updateUserPasscode`.
    @discardableResult
    public func updateUserPasscode(oldPasscode: String, newPasscode: String, confirmNewPasscode: String)
        async throws(LatchkeyError) -> String {
        let domain = ErrorDomain.updateUserPasscode
        if newPasscode != confirmNewPasscode { throw refusal(.confirmationMismatch(field: "confirmNewPasscode"), domain) }
        let rules = try await retrievePasscodeConfigurations()
        do { try rules.validate(newPasscode, field: "newPasscode") } catch { throw refusal(error, domain) }
        let response: Components.Schemas.MessageResponse = try await call(domain) {
            try await api.updateUserPasscode(body: .json(.init(oldPasscode: oldPasscode, newPasscode: newPasscode,
                                                               confirmNewPasscode: confirmNewPasscode))).ok.body.json
        }
        return response.message
    }

    /// `updateMFAAnswers`: exactly the issuer's number of answers (question → answer).
    @discardableResult
    public func updateMFAAnswers(_ answers: [String: String]) async throws(LatchkeyError) -> String {
        let domain = ErrorDomain.updateMfaAnswers
        let rules = EnrollmentRules(mfa: try await retrieveMfaQuestionsWithMetadata())
        do { try rules.validateMFAAnswers(answers, field: "mfaAnswers") } catch { throw refusal(error, domain) }
        let response: Components.Schemas.MessageResponse = try await call(domain) {
            try await api.updateMFAAnswers(body: .json(.init(mfaAnswers: .init(additionalProperties: answers)))).ok.body.json
        }
        return response.message
    }

    /// `changeExpiredPassword`: without a session, by email and the expired password.
    @discardableResult
    public func changeExpiredPassword(email: String, expiredPassword: String, newPassword: String,
                                      confirmNewPassword: String) async throws(LatchkeyError) -> String {
        let domain = ErrorDomain.changePassword
        try await checkNewPassword(newPassword, confirm: confirmNewPassword, domain: domain)
        let response: Components.Schemas.MessageResponse = try await call(domain) {
            try await api.changeExpiredPassword(body: .json(.init(email: email, expiredPassword: expiredPassword,
                                                                  newPassword: newPassword,
                                                                  confirmNewPassword: confirmNewPassword))).ok.body.json
        }
        return response.message
    }

    /// `resendVerificationEmail`: a message to show; the same for any address.
    public func resendVerificationEmail(_ email: String) async throws(LatchkeyError) -> String {
        let response: Components.Schemas.MessageResponse = try await call(.resendVerificationEmail) {
            try await api.resendVerificationEmail(body: .json(.init(email: email))).ok.body.json
        }
        return response.message
    }

    private func checkNewPassword(_ password: String, confirm: String, domain: ErrorDomain) async throws(LatchkeyError) {
        if password != confirm { throw refusal(.confirmationMismatch(field: "confirmNewPassword"), domain) }
        let rules = try await retrievePasswordConfigurations()
        do { try rules.validate(password, field: "newPassword") } catch { throw refusal(error, domain) }
    }

    /// A rule broken before sending, as an error of `domain`.
    func refusal(_ error: DomainError, _ domain: ErrorDomain) -> LatchkeyError {
        LatchkeyError(kind: .validation, code: error.code, domain: domain, id: error.id,
                      message: context.message(for: domain, code: error.code) ?? error.message, detail: error.message,
                      field: error.field)
    }
}
