// swift-format-ignore-file: NeverUseImplicitlyUnwrappedOptionals
// Apple's AuthenticationServices (passkeys through ASAuthorizationController), as far as the SDK
// uses it. See ../README.md for how these stubs are written and used.
// The assertion's values are implicitly unwrapped (`Data!`), as Apple declares them.
import Foundation

#if canImport(UIKit)
import UIKit

/// `typealias ASPresentationAnchor = UIWindow` (iOS, iPadOS, Mac Catalyst, visionOS)
public typealias ASPresentationAnchor = UIWindow
#else
import AppKit

/// `typealias ASPresentationAnchor = NSWindow` (macOS)
public typealias ASPresentationAnchor = NSWindow
#endif

/// `class ASAuthorizationRequest : NSObject`
open class ASAuthorizationRequest: NSObject {}

/// `protocol ASAuthorizationCredential : NSCopying, NSSecureCoding, NSObjectProtocol`
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// `protocol ASPublicKeyCredential : ASAuthorizationCredential`
public protocol ASPublicKeyCredential: ASAuthorizationCredential {
    /// `var rawClientDataJSON: Data { get }`
    var rawClientDataJSON: Data { get }
    /// `var credentialID: Data { get }`
    var credentialID: Data { get }
}

/// `struct ASAuthorizationPublicKeyCredentialUserVerificationPreference : Hashable, RawRepresentable`
public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    /// `init(rawValue: String)`
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// `class ASAuthorizationPlatformPublicKeyCredentialDescriptor` (`Sendable`)
open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject, @unchecked Sendable {
    /// `init(credentialID: Data)`
    public init(credentialID: Data) { fatalError() }
}

/// `class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest : ASAuthorizationRequest`
open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    /// `var displayName: String? { get set }`
    open var displayName: String?
    /// `var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }`
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "preferred")
    /// `var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor]? { get set }` (iOS 17.4, macOS 13.5)
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor]?
}

/// `class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest : ASAuthorizationRequest`
open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    /// `var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] { get set }`
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    /// `var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }`
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "preferred")
}

/// `class ASAuthorizationPlatformPublicKeyCredentialProvider : NSObject`
open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    /// `init(relyingPartyIdentifier: String)`
    public init(relyingPartyIdentifier: String) { fatalError() }

    /// `func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
    /// -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest`
    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest { fatalError() }

    /// `func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest`
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        fatalError()
    }
}

/// `class ASAuthorizationPlatformPublicKeyCredentialRegistration : NSObject, ASAuthorizationPublicKeyCredentialRegistration`
open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASPublicKeyCredential {
    public var rawClientDataJSON: Data { fatalError() }
    public var credentialID: Data { fatalError() }
    /// `var rawAttestationObject: Data? { get }`
    public var rawAttestationObject: Data? { fatalError() }
}

/// `class ASAuthorizationPlatformPublicKeyCredentialAssertion : NSObject, ASAuthorizationPublicKeyCredentialAssertion`
open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASPublicKeyCredential {
    public var rawClientDataJSON: Data { fatalError() }
    public var credentialID: Data { fatalError() }
    /// `var rawAuthenticatorData: Data! { get }`
    public var rawAuthenticatorData: Data! { fatalError() }
    /// `var signature: Data! { get }`
    public var signature: Data! { fatalError() }
    /// `var userID: Data! { get }`
    public var userID: Data! { fatalError() }
}

/// `class ASAuthorization : NSObject`
open class ASAuthorization: NSObject {
    /// `var credential: any ASAuthorizationCredential { get }`
    open var credential: any ASAuthorizationCredential { fatalError() }
}

/// `struct ASAuthorizationError` (a bridged `NSError` of `ASAuthorizationErrorDomain`).
public struct ASAuthorizationError: Error, Hashable {
    /// `enum Code : Int`
    public enum Code: Int, Sendable {
        case unknown = 1000, canceled, invalidResponse, notHandled, failed, notInteractive, matchedExcludedCredential
    }
    /// The error's code.
    public var code: Code
    /// `static var canceled: ASAuthorizationError.Code { get }`
    public static var canceled: Code { .canceled }
}

/// `@MainActor protocol ASAuthorizationControllerDelegate : NSObjectProtocol`; both methods are
/// Objective-C `optional` requirements.
@MainActor public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    /// `optional func authorizationController(controller: ASAuthorizationController,
    /// didCompleteWithAuthorization authorization: ASAuthorization)`
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    /// `optional func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)`
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

/// `@MainActor protocol ASAuthorizationControllerPresentationContextProviding : NSObjectProtocol`
@MainActor public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    /// `func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor`
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// `class ASAuthorizationController : NSObject`
open class ASAuthorizationController: NSObject {
    /// `init(authorizationRequests: [ASAuthorizationRequest])`
    public init(authorizationRequests: [ASAuthorizationRequest]) { fatalError() }
    /// `weak var delegate: (any ASAuthorizationControllerDelegate)? { get set }`
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    /// `weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? { get set }`
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    /// `func performRequests()`
    open func performRequests() { fatalError() }
}
