import Foundation
import LatchkeyCore

/// `PDRegisterCustomerRequest`: the nonce, the profile (no password) and the security profiles.
public struct CustomerRegistration: Sendable, Equatable {
    public var nonce: String
    public var profile: UserProfile
    public init(nonce: String, profile: UserProfile) {
        self.nonce = nonce
        self.profile = profile
    }
}

/// `PDRegisterCustomerResponse`.
public struct CustomerRegistrationResult: Sendable, Equatable {
    public var customerUri: String
    /// For `loginByNonce` from the registering device, within the issuer's window.
    public var nonce: String
    public var additionalCustomerInformation: [String: String]
}

extension DomainError {
    package static let invalidAuthorizationCode = DomainError(.invalidAuthorizationCode)
    package static let invalidFederationNonce = DomainError(.invalidNonce)
    package static let mfaAnswersRequired = DomainError(.mfaAnswersRequired, field: "mfaSecurityProfiles")
    package static let noLinkedWallet = DomainError(.noLinkedWallet)
    /// The provider's own words never reach the app (the caller logs them).
    package static let providerUnavailable = DomainError(.providerUnavailable)
    package static let providerTimeout = DomainError(.providerTimeout)

    /// The refusal a provider failure means for the app.
    package static func from(_ error: FederationError) -> DomainError {
        switch error {
        case .unknownProvider, .codeRefused: .invalidAuthorizationCode
        case .invalidIDToken(let reason):
            DomainError(.invalidIDToken, message: reason)
        case .unavailable: .providerUnavailable
        case .timeout: .providerTimeout
        }
    }
}
