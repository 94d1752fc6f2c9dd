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
    static let invalidAuthorizationCode = DomainError(code: .unauthorized, id: "invalid_authorization_code",
                                                      message: "Access denied; invalid authorization code.")
    static let invalidFederationNonce = DomainError(code: .unauthorized, id: "invalid_nonce",
                                                    message: "Access denied; invalid nonce.")
    static let mfaAnswersRequired = DomainError(code: 410, id: "mfa_answers_required", message: "MFA response is required.",
                                                field: "mfaSecurityProfiles")
    static let noLinkedWallet = DomainError(code: .unauthorized, id: "no_linked_wallet",
                                            message: "No wallet is linked to this identity; register first.")
    static func providerUnavailable(_ detail: String) -> DomainError {
        DomainError(code: .serverError, id: "provider_unavailable",
                    message: "The identity provider cannot be reached right now. Try again later. (\(detail))")
    }
    static let providerTimeout = DomainError(code: .serverError, id: "provider_timeout",
                                             message: "The identity provider did not answer in time. Try again later.")

    /// The refusal a provider failure means for the app.
    static func from(_ error: FederationError) -> DomainError {
        switch error {
        case .unknownProvider, .codeRefused: .invalidAuthorizationCode
        case .invalidIDToken(let reason):
            DomainError(code: .unauthorized, id: "invalid_id_token", message: "Access denied; \(reason)")
        case .unavailable(let detail): .providerUnavailable(detail)
        case .timeout: .providerTimeout
        }
    }
}
