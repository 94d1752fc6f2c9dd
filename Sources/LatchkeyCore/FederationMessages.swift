/// The SSO message objects of the spec (`registration-objects.txt`), as they travel as JSON.

/// `PDCustomerProfileMetaDataAdditionalData`: a profile property requested from, or answered by,
/// the identity provider.
public struct CustomerProfileMetaDataAdditionalData: Codable, Sendable, Hashable {
    public var additionalDataKey: String
    public var additionalDataValue: String?
    public init(additionalDataKey: String, additionalDataValue: String? = nil) {
        self.additionalDataKey = additionalDataKey
        self.additionalDataValue = additionalDataValue
    }
}

/// `PDRetrieveCustomerProfileMetaDataRequest`.
public struct RetrieveCustomerProfileMetaDataRequest: Codable, Sendable, Hashable {
    /// The code the app obtained from the provider's authorization endpoint.
    public var authorizationCode: String
    /// The issuer's id of the provider (`identityProviders[].id`).
    public var identityProvider: String
    public var additionalInformation: [CustomerProfileMetaDataAdditionalData]
    /// PKCE (RFC 7636): the `code_verifier` the app made for this authorization request; the server
    /// sends it with the code, so a stolen code is useless without it.
    public var codeVerifier: String?
    public init(authorizationCode: String, identityProvider: String,
                additionalInformation: [CustomerProfileMetaDataAdditionalData] = [], codeVerifier: String? = nil) {
        self.authorizationCode = authorizationCode
        self.identityProvider = identityProvider
        self.additionalInformation = additionalInformation
        self.codeVerifier = codeVerifier
    }
}

extension RetrieveCustomerProfileMetaDataRequest {
    private enum CodingKeys: String, CodingKey { case authorizationCode, identityProvider, additionalInformation, codeVerifier }

    /// `additionalInformation` is optional on the wire (no extra data asked for).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(authorizationCode: try container.decode(String.self, forKey: .authorizationCode),
                  identityProvider: try container.decode(String.self, forKey: .identityProvider),
                  additionalInformation: try container.decodeIfPresent([CustomerProfileMetaDataAdditionalData].self,
                                                                       forKey: .additionalInformation) ?? [],
                  codeVerifier: try container.decodeIfPresent(String.self, forKey: .codeVerifier))
    }
}

/// `PDRetrieveCustomerProfileMetaDataResponse`.
public struct RetrieveCustomerProfileMetaDataResponse: Codable, Sendable, Hashable {
    public var authorizationCode: String
    /// The provider's claims as raw JSON.
    public var customerInfoJson: String
    public var isCustomerSecurityProfileExists: Bool
    /// The single-use key to `registerCustomer`.
    public var nonce: String
    public var deviceUniqueId: String?
    public var deviceType: String?
    public var identityProvider: String
    public var additionalInformation: [CustomerProfileMetaDataAdditionalData]

    public init(authorizationCode: String, customerInfoJson: String, isCustomerSecurityProfileExists: Bool, nonce: String,
                deviceUniqueId: String?, deviceType: String?, identityProvider: String,
                additionalInformation: [CustomerProfileMetaDataAdditionalData]) {
        self.authorizationCode = authorizationCode
        self.customerInfoJson = customerInfoJson
        self.isCustomerSecurityProfileExists = isCustomerSecurityProfileExists
        self.nonce = nonce
        self.deviceUniqueId = deviceUniqueId
        self.deviceType = deviceType
        self.identityProvider = identityProvider
        self.additionalInformation = additionalInformation
    }
}

/// `PDMFASecurityProfile`: a pool question and the user's answer.
public struct MFASecurityProfile: Codable, Sendable, Hashable {
    public var question: String
    public var answer: String
    public init(question: String, answer: String) {
        self.question = question
        self.answer = answer
    }
}

/// `PDAdditionalCustomerInformation`.
public struct AdditionalCustomerInformation: Codable, Sendable, Hashable {
    public var additionalCustomerInformationKey: String
    public var additionalCustomerInformationValue: String
    public init(_ key: String, _ value: String) {
        additionalCustomerInformationKey = key
        additionalCustomerInformationValue = value
    }
}

/// `PDRegisterCustomerRequest`: an SSO registration (no password: the provider authenticates).
public struct RegisterCustomerRequest: Codable, Sendable, Hashable {
    public var nonce: String
    public var email: String?
    public var firstName: String?
    public var lastName: String?
    public var passcode: String?
    public var phone: String?
    public var externalId: String?
    public var address: AddressInformation?
    public var mfaSecurityProfiles: [MFASecurityProfile]?
    public var additionalCustomerInformation: [AdditionalCustomerInformation]?
    public init(nonce: String, email: String?, firstName: String?, lastName: String?, passcode: String?,
                mfaSecurityProfiles: [MFASecurityProfile]?, additionalCustomerInformation: [AdditionalCustomerInformation]? = nil,
                phone: String? = nil, externalId: String? = nil, address: AddressInformation? = nil) {
        self.nonce = nonce
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.passcode = passcode
        self.mfaSecurityProfiles = mfaSecurityProfiles
        self.additionalCustomerInformation = additionalCustomerInformation
        self.phone = phone
        self.externalId = externalId
        self.address = address
    }
}

/// `PDRegisterCustomerResponse`.
public struct RegisterCustomerResponse: Codable, Sendable, Hashable {
    /// For `loginByNonce` from the registering device.
    public var nonce: String
    public var customerUri: String
    public var additionalCustomerInformation: [AdditionalCustomerInformation]
    public init(nonce: String, customerUri: String, additionalCustomerInformation: [AdditionalCustomerInformation]) {
        self.nonce = nonce
        self.customerUri = customerUri
        self.additionalCustomerInformation = additionalCustomerInformation
    }
}

/// `PDLoginByFederatedIdentityRequest`.
public struct LoginByFederatedIdentityRequest: Codable, Sendable, Hashable {
    public var authorizationCode: String
    public var identityProvider: String
    /// PKCE (RFC 7636): the `code_verifier` of this authorization request.
    public var codeVerifier: String?
    public init(authorizationCode: String, identityProvider: String, codeVerifier: String? = nil) {
        self.authorizationCode = authorizationCode
        self.identityProvider = identityProvider
        self.codeVerifier = codeVerifier
    }
}
