#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation
import LatchkeyCore

/// The phone's passkeys through `ASAuthorizationController` (iOS 17, macOS 15): creates a passkey
/// for ``PasskeyRegistrationOptions`` and signs ``PasskeyAssertionOptions``' challenge with one,
/// showing the system's sheet over `anchor`. The app needs the associated domain
/// `webcredentials:<relyingPartyID>` and the server's `/.well-known/apple-app-site-association`
/// listing the app (the article "Adding passkeys to a wallet app").
///
/// One request at a time: a second one while the sheet is up is refused, as Apple's controller
/// would cancel the first.
@MainActor
public final class PasskeyAuthenticator {
    private let anchor: @MainActor () -> ASPresentationAnchor
    private var running: PasskeyRequest?

    /// - Parameter anchor: the window the sheet is shown over (the key window of the scene).
    public init(anchor: @escaping @MainActor () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    /// Creates a passkey for the wallet: give the result to `FactorsClient.registerPasskey(_:name:)`.
    /// - Throws: `LatchkeyError` `.passkeyCancelled` when the user dismissed the sheet (or the
    ///   authenticator already holds one of the wallet's passkeys); `.passkeyUnavailable` for any
    ///   other refusal (no associated domain for the relying party, no passcode on the phone).
    public func register(_ options: PasskeyRegistrationOptions) async throws(LatchkeyError) -> PasskeyRegistration {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.relyingPartyID)
        let request = provider.createCredentialRegistrationRequest(challenge: options.challenge, name: options.userName,
                                                                   userID: options.userID)
        request.displayName = options.userDisplayName
        if let preference = options.userVerification {
            request.userVerificationPreference = .init(rawValue: preference)
        }
        if #available(iOS 17.4, *) {
            request.excludedCredentials = options.excludedCredentialIDs.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
        }
        let credential = try await perform(request)
        guard let registration = credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration,
              let attestationObject = registration.rawAttestationObject else {
            throw Self.unavailable("The authenticator answered without a new passkey.")
        }
        return PasskeyRegistration(credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
                                   attestationObject: attestationObject)
    }

    /// Signs the options' challenge with one of the user's passkeys: give the result to
    /// `AuthenticationClient.loginWithPasskey(_:)` or, at the MFA prompt, to
    /// `answerMFA(_:with: .passkey(_:))`.
    /// - Throws: `LatchkeyError` `.passkeyCancelled` or `.passkeyUnavailable`, as ``register(_:)``.
    public func assert(_ options: PasskeyAssertionOptions) async throws(LatchkeyError) -> PasskeyAssertion {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.relyingPartyID)
        let request = provider.createCredentialAssertionRequest(challenge: options.challenge)
        request.allowedCredentials = options.allowedCredentialIDs.map {
            ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
        }
        if let preference = options.userVerification {
            request.userVerificationPreference = .init(rawValue: preference)
        }
        let credential = try await perform(request)
        guard let assertion = credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion,
              let authenticatorData = assertion.rawAuthenticatorData, let signature = assertion.signature else {
            throw Self.unavailable("The authenticator answered without a signature.")
        }
        return PasskeyAssertion(credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
                                authenticatorData: authenticatorData, signature: signature, userHandle: assertion.userID)
    }

    /// Runs one request on an `ASAuthorizationController` and waits for its delegate's answer.
    private func perform(_ request: ASAuthorizationRequest) async throws(LatchkeyError) -> any ASAuthorizationCredential {
        guard running == nil else { throw Self.unavailable("Another passkey request is showing.") }
        let controller = ASAuthorizationController(authorizationRequests: [request])
        let outcome: Result<any ASAuthorizationCredential, any Error> = await withCheckedContinuation { continuation in
            let delegate = PasskeyRequest(anchor: anchor(), continuation: continuation)
            running = delegate
            // Both are weak references of the controller's: `running` keeps the delegate alive.
            controller.delegate = delegate
            controller.presentationContextProvider = delegate
            controller.performRequests()
        }
        running = nil
        switch outcome {
        case .success(let credential): return credential
        case .failure(let error as ASAuthorizationError) where error.code == .canceled:
            let detail = "The user dismissed the passkey sheet."
            throw LatchkeyError(kind: .validation, code: .invalidParameter, domain: .factors, id: .passkeyCancelled,
                                message: detail, detail: detail)
        case .failure(let error): throw Self.unavailable("The authenticator refused the request: \(error)")
        }
    }

    private static func unavailable(_ detail: String) -> LatchkeyError {
        LatchkeyError(kind: .configuration, code: .serverError, domain: .factors, id: .passkeyUnavailable,
                      message: detail, detail: detail)
    }
}

/// The delegate and presentation context of one request: resumes its continuation once.
@MainActor
private final class PasskeyRequest: NSObject, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    private var continuation: CheckedContinuation<Result<any ASAuthorizationCredential, any Error>, Never>?

    init(anchor: ASPresentationAnchor, continuation: CheckedContinuation<Result<any ASAuthorizationCredential, any Error>, Never>) {
        self.anchor = anchor
        self.continuation = continuation
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        finish(.success(authorization.credential))
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        finish(.failure(error))
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }

    private func finish(_ outcome: Result<any ASAuthorizationCredential, any Error>) {
        continuation?.resume(returning: outcome)
        continuation = nil
    }
}
#endif
