import LatchkeyCore

/// Why an external identity provider did not yield a verified identity.
public enum FederationError: Error, Sendable, Equatable {
    /// No provider with this id is configured.
    case unknownProvider
    /// The provider refused the authorization code (used, expired, forged, wrong redirect URI).
    case codeRefused
    /// The ID token failed verification: signature, issuer, audience or expiry.
    case invalidIDToken(LocalizableText)
    /// The provider could not be reached or answered with an error.
    case unavailable(String)
    /// The provider did not answer within the timeout.
    case timeout
}
