import Foundation
import LatchkeyAPI
import LatchkeyCore

/// A platform authenticator's answer to ``PasskeyRegistrationOptions``: the new passkey, as
/// `ASAuthorizationPlatformPublicKeyCredentialRegistration` gives it (`PasskeyAuthenticator`
/// makes one), sent to the server as WebAuthn's `RegistrationResponseJSON`.
public struct PasskeyRegistration: Sendable, Equatable {
    public let credentialID: Data
    /// The client data the authenticator signed over (`type` `webauthn.create`, the challenge, the origin).
    public let clientDataJSON: Data
    /// The CBOR attestation object: the authenticator data with the new public key.
    public let attestationObject: Data
    /// How the authenticator can be reached (`internal`, `hybrid`), when it says.
    public let transports: [String]
    /// `platform` for the phone's own authenticator, `cross-platform` for a security key.
    public let attachment: String?

    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = [],
                attachment: String? = "platform") {
        (self.credentialID, self.clientDataJSON, self.attestationObject) = (credentialID, clientDataJSON, attestationObject)
        (self.transports, self.attachment) = (transports, attachment)
    }

    /// WebAuthn's `RegistrationResponseJSON` (Level 3 §5.1): binary values base64url without
    /// padding, `id` and `rawId` both the credential id, no client extension results.
    public var json: Data { WebAuthnJSON.encode(wire) }

    var wire: Components.Schemas.RegistrationResponseJSON {
        let id = credentialID.base64URL
        return .init(id: id, rawId: id,
                     response: .init(clientDataJSON: clientDataJSON.base64URL, attestationObject: attestationObject.base64URL,
                                     transports: transports.isEmpty ? nil : transports),
                     authenticatorAttachment: attachment, clientExtensionResults: .init(), _type: .publicKey)
    }
}

/// A platform authenticator's answer to ``PasskeyAssertionOptions``: a passkey's signature over
/// the server's challenge, as `ASAuthorizationPlatformPublicKeyCredentialAssertion` gives it
/// (`PasskeyAuthenticator` makes one), sent as WebAuthn's `AuthenticationResponseJSON`.
public struct PasskeyAssertion: Sendable, Equatable {
    public let credentialID: Data
    /// The client data the authenticator signed over (`type` `webauthn.get`, the challenge, the origin).
    public let clientDataJSON: Data
    /// The authenticator data: the relying party's hash, flags and signature counter.
    public let authenticatorData: Data
    /// The signature over the authenticator data and the client data's SHA-256.
    public let signature: Data
    /// The user handle stored with the passkey (how a discoverable login names the wallet).
    public let userHandle: Data?
    public let attachment: String?

    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?,
                attachment: String? = "platform") {
        (self.credentialID, self.clientDataJSON, self.authenticatorData) = (credentialID, clientDataJSON, authenticatorData)
        (self.signature, self.userHandle, self.attachment) = (signature, userHandle, attachment)
    }

    /// WebAuthn's `AuthenticationResponseJSON` (Level 3 §5.1): binary values base64url without
    /// padding, `userHandle` left out when the authenticator gave none (or an empty one).
    public var json: Data { WebAuthnJSON.encode(wire) }

    var wire: Components.Schemas.AuthenticationResponseJSON {
        let id = credentialID.base64URL
        let handle = userHandle.flatMap { $0.isEmpty ? nil : $0.base64URL }
        return .init(id: id, rawId: id,
                     response: .init(clientDataJSON: clientDataJSON.base64URL, authenticatorData: authenticatorData.base64URL,
                                     signature: signature.base64URL, userHandle: handle),
                     authenticatorAttachment: attachment, clientExtensionResults: .init(), _type: .publicKey)
    }
}
