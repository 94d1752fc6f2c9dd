import LatchkeyAPI
import LatchkeyCore

extension EnrollmentClient {
    /// `retrieveCustomerProfileMetaData`: hands the provider's authorization code to the server,
    /// which exchanges and verifies it; answers the provider's claims and the nonce for
    /// `registerCustomer`. Errors of `kUserErrorRetrieveCustomerProfileMetaDataDomain`: 400, 401
    /// invalid authorization code, 500 provider unavailable or too slow.
    public func retrieveCustomerProfileMetaData(_ request: RetrieveCustomerProfileMetaDataRequest) async throws(LatchkeyError)
        -> RetrieveCustomerProfileMetaDataResponse {
        let domain = ErrorDomain.retrieveCustomerProfileMetaData
        if request.authorizationCode.isEmpty { throw refusal(.invalidField("authorizationCode", "The code is required."), domain) }
        if request.identityProvider.isEmpty { throw refusal(.invalidField("identityProvider", "The provider is required."), domain) }
        return try await call(domain) {
            try await api.retrieveCustomerProfileMetaData(body: .json(request)).ok.body.json
        }
    }

    /// `registerCustomer` (SSO): the nonce of `retrieveCustomerProfileMetaData`, the profile, the
    /// PIN and the MFA security profiles. Checked before sending: 410 no MFA answers, 408 PIN rules.
    /// Errors of `kUserErrorRegisterCustomerDomain`: 400, 401 invalid nonce, 408, 410, 416 email in use.
    public func registerCustomer(_ request: RegisterCustomerRequest) async throws(LatchkeyError) -> RegisterCustomerResponse {
        let domain = ErrorDomain.registerCustomer
        if request.nonce.isEmpty { throw refusal(.invalidField("nonce", "The nonce is required."), domain) }
        if (request.mfaSecurityProfiles ?? []).isEmpty {
            throw refusal(DomainError(.mfaAnswersRequired, field: "mfaSecurityProfiles"), domain)
        }
        let rules = try await retrievePasscodeConfigurations()
        do { try rules.validate(request.passcode, field: "passcode") } catch {
            throw refusal(DomainError(.ssoPasscodeRules, message: error.text, field: "passcode"), domain)
        }
        return try await call(domain) {
            try await api.registerCustomer(body: .json(request)).created.body.json
        }
    }
}

extension AuthenticationClient {
    /// `loginByFederatedIdentity`: a fresh authorization code from the provider logs in the wallet
    /// linked to that identity; on a device not linked yet the answer is the MFA prompt. Errors of
    /// `kUserErrorLoginWithFederatedIdentityDomain`: 401, 418, 421, 423, 500, 503, 511.
    public func loginByFederatedIdentity(_ request: LoginByFederatedIdentityRequest) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithFederatedIdentity, method: .federated) {
            try await api.loginByFederatedIdentity(body: .json(request)).ok.body.json
        }
    }
}
