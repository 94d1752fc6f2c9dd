import Foundation
import LatchkeyCore

/// SSO: `retrieveCustomerProfileMetaData`, `registerCustomer` and `loginByFederatedIdentity`
/// against the issuer's OpenID Connect providers. Knows no HTTP; throws `DomainError`.
public struct FederationService: Sendable {
    /// Nonces, federated links and the users they create.
    public typealias Store = UserStore & DeviceStore & CredentialStore & FederationStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Builds the verification link of an address the provider did not verify.
    package let outbox: OutboxWriter
    /// Encrypts the stored values of the fields the issuer marks `pciEncryptionRequired`.
    package let fields: ProfileFieldCipher
    /// The device and wallet checks of a federated login.
    package let verifier: CredentialVerifier
    /// Links or prompts the device and opens the session of a federated login.
    package let logins: LoginFlow
    /// The issuer's providers by id.
    package let providers: [String: OIDCProvider]
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date
    /// How long the nonce of `retrieveCustomerProfileMetaData` can be used.
    package static let nonceLifetime: TimeInterval = 600

    /// The providers by id (the first of a repeated id).
    package static func byID(_ providers: [OIDCProvider]) -> [String: OIDCProvider] {
        Dictionary(providers.map { ($0.settings.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The identity a code stands for at a provider; 401 for an unknown provider or a refused code,
    /// 401 for an ID token that does not verify, 500 (HTTP 502/504) when the provider is down or slow.
    package func identity(code: String, provider id: String, codeVerifier: String?) async throws -> VerifiedIdentity {
        if code.isEmpty { throw DomainError.invalidField("authorizationCode", "authorizationCode is required.") }
        if let codeVerifier, !(43...128).contains(codeVerifier.count)
            || !codeVerifier.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) }) {
            throw DomainError.invalidField("codeVerifier", "A PKCE code verifier is 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ and ~.")
        }
        if id.isEmpty { throw DomainError.invalidField("identityProvider", "identityProvider is required.") }
        guard let provider = providers[id] else { throw DomainError.invalidAuthorizationCode }
        do { return try await provider.identity(forCode: code, codeVerifier: codeVerifier) } catch let error as FederationError {
            throw DomainError.from(error)
        }
    }

    /// `retrieveCustomerProfileMetaData`.
    public func retrieveProfileMetadata(code: String, provider: String, codeVerifier: String? = nil, requested: [String],
                                        caller: Caller) async throws -> RetrieveCustomerProfileMetaDataResponse {
        let device = caller.device
        let identity = try await identity(code: code, provider: provider, codeVerifier: codeVerifier)
        let nonce = SecureRandom.token()
        let time = now()
        try await store.createFederationNonce(FederationNonceRecord(
            digest: SecureRandom.digest(nonce), providerID: provider, subject: identity.subject, email: identity.email,
            emailVerified: identity.emailVerified, createdAt: time, expiresAt: time.addingTimeInterval(Self.nonceLifetime)))
        var hasSecurityProfile = false
        if let linked = try await store.federatedUser(providerID: provider, subject: identity.subject) {
            hasSecurityProfile = !(try await store.mfaAnswers(userID: linked.id)).isEmpty
        }
        return RetrieveCustomerProfileMetaDataResponse(
            authorizationCode: code, customerInfoJson: identity.claimsJSON, isCustomerSecurityProfileExists: hasSecurityProfile,
            nonce: nonce, deviceUniqueId: device.deviceID, deviceType: device.deviceType, identityProvider: provider,
            additionalInformation: requested.map { CustomerProfileMetaDataAdditionalData(additionalDataKey: $0,
                                                                                        additionalDataValue: identity.claims[$0]) })
    }

    /// `registerCustomer`: 400 fields, 410 no MFA answers, 408 passcode rules, 401 invalid or used
    /// nonce, 416 email in use by a wallet. The user is linked to the nonce's provider subject and
    /// gets a registration nonce for `loginByNonce` from this device. An address the provider did
    /// not assert verified is pending like `registerNewUser`'s (it reserves nothing until its link
    /// is opened); one it did replaces a pending registration of the address.
    public func registerCustomer(_ request: CustomerRegistration, caller: Caller) async throws -> CustomerRegistrationResult {
        let store = self.store.recording(into: caller.audit)
        return try await admitted(1 + (request.profile.mfaAnswers?.count ?? 0), for: caller) { hasher in
            if request.nonce.isEmpty { throw DomainError.invalidField("nonce", "nonce is required.") }
            var profile = issuer.enrollmentRules.applyingDefaults(request.profile)
            if profile.email.map({ $0.trimmingCharacters(in: .whitespaces) }) == nil || profile.email?.isEmpty == true {
                throw DomainError.invalidField("email", "email is required.")
            }
            profile.email = profile.email?.trimmingCharacters(in: .whitespaces)
            if (profile.mfaAnswers ?? [:]).isEmpty { throw DomainError.mfaAnswersRequired }
            if let problem = Self.problem(in: profile, rules: issuer.enrollmentRules) { throw problem }
            guard let federation = try await store.federationNonce(digest: SecureRandom.digest(request.nonce), now: now()) else {
                throw DomainError.invalidFederationNonce
            }
            return try await create(profile, email: profile.email ?? "", nonce: request.nonce, provided: federation,
                              deviceID: caller.device.deviceID, hasher: hasher, caller: caller)
        }
    }

    /// The first rule the profile breaks; passcode rules are the spec's 408 for this call.
    package static func problem(in profile: UserProfile, rules: EnrollmentRules) -> DomainError? {
        do {
            try rules.validateCustomerRegistration(profile)
            return nil
        } catch {
            guard error.kind == .passcodeRules else { return error }
            return DomainError(.ssoPasscodeRules, message: error.text, field: "passcode")
        }
    }
}
