import Foundation
import LatchkeyAPI

/// Whether the SDK holds a live session.
public enum AuthenticationState: Sendable, Equatable {
    /// Not known yet: the stored session has not been read, or could not be read (a Keychain
    /// before the phone's first unlock after a restart). The SDK reads it again at the next call
    /// and publishes what it finds; show neither the login screen nor the wallet yet.
    case unknown
    /// No session on this device.
    case loggedOut
    /// A session for the customer.
    case authenticated(customerUri: String)
}

/// Told of every change of the authentication state (the spec's delegate style), on the main
/// actor and in order, so a `@MainActor` view model can conform and update its UI directly.
@MainActor
public protocol AuthenticationDelegate: AnyObject, Sendable {
    func authenticationStateDidChange(_ state: AuthenticationState)
}

/// The MFA prompt of a login from a device not linked to the user (the spec's `PDMFAToken`).
///
/// `factors` are what the wallet has enrolled that the issuer accepts here, in the order to
/// offer them (passkey, authenticator app, question, recovery code). For the spec's question:
/// show `mfaSecretQuestion`, set `mfaSecretAnswer`, pass the token to `registerWithMFA`. For the
/// others: `AuthenticationClient.answerMFA(_:with:)` with the code, or with a passkey's answer to
/// `passkeyOptions`.
public struct MFAToken: Sendable, Equatable {
    /// The question to answer; empty when `factors` does not offer `.question`.
    public let mfaSecretQuestion: String
    public var mfaSecretAnswer: String = ""
    /// The factors that answer this prompt.
    public let factors: [FactorKind]
    /// What the authenticator signs when `factors` offers `.passkey` (the wallet's passkeys).
    public let passkeyOptions: PasskeyAssertionOptions?
    let challengeToken: String
    let domain: ErrorDomain
}

/// The outcome of a login.
public enum LoginResult: Sendable, Equatable {
    /// Logged in; the attributes are the server's (`lastLogin`, `lastPasswordUpdate`, `passwordExpiresAt`).
    case authenticated(additionalAttributes: [String: String])
    /// The device is not linked: answer the prompt with `registerWithMFA` (the question) or
    /// `answerMFA(_:with:)` (any factor it offers).
    case mfaRequired(MFAToken)
}

/// The current session as the server describes it.
public struct SessionInfo: Sendable, Equatable, Codable {
    public var customerUri: String
    public var deviceId: String?
    public var createdAt: Date
    public var lastSeenAt: Date
    public var idleExpiresAt: Date
    public var expiresAt: Date
}

extension SessionInfo {
    init(_ wire: Components.Schemas.SessionResponse) {
        self.init(customerUri: wire.customerUri, deviceId: wire.deviceId, createdAt: wire.createdAt,
                  lastSeenAt: wire.lastSeenAt, idleExpiresAt: wire.idleExpiresAt, expiresAt: wire.expiresAt)
    }
}
