import Crypto
import Foundation

/// The relying party the ceremonies are for: its id (a registrable domain suffix of its origins' hosts),
/// its display name, and the exact origins a ceremony may come from (web origins such as
/// `https://wallet.example.com` and app origins such as `android:apk-key-hash:…`).
public struct WebAuthnRelyingParty: Sendable, Equatable {
    public var id: String
    public var name: String
    public var origins: [String]

    public init(id: String, name: String, origins: [String]) {
        self.id = id
        self.name = name
        self.origins = origins
    }
}

/// What a client sent to register a credential (RegistrationResponseJSON, its base64url fields decoded).
public struct WebAuthnRegistration: Sendable, Equatable {
    public var credentialID: Data
    public var clientDataJSON: Data
    public var attestationObject: Data
    /// The transports the client reported (`internal`, `hybrid`, `usb`, …), kept as hints.
    public var transports: [String]

    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = []) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// What a client sent to sign in with a credential (AuthenticationResponseJSON, its base64url fields decoded).
public struct WebAuthnAssertion: Sendable, Equatable {
    public var credentialID: Data
    public var clientDataJSON: Data
    public var authenticatorData: Data
    public var signature: Data
    /// The user handle of a discoverable credential (the id given at registration).
    public var userHandle: Data?

    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// A registration that passed every check: what the store keeps of the credential.
public struct VerifiedCredential: Sendable, Equatable {
    public var credentialID: Data
    /// The COSE_Key bytes as the authenticator sent them.
    public var publicKey: Data
    /// The COSE algorithm (`COSEKey.es256` or `COSEKey.edDSA`).
    public var algorithm: Int
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var aaguid: UUID
    /// `none` or `packed`.
    public var attestationFormat: String
    public var transports: [String]

    public init(credentialID: Data, publicKey: Data, algorithm: Int, signCount: UInt32, backupEligible: Bool, backedUp: Bool,
                aaguid: UUID, attestationFormat: String, transports: [String]) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.transports = transports
    }
}

/// An assertion that passed every check: what the store updates of the credential.
public struct VerifiedAssertion: Sendable, Equatable {
    public var signCount: UInt32
    public var backedUp: Bool
    public var userVerified: Bool

    public init(signCount: UInt32, backedUp: Bool, userVerified: Bool) {
        self.signCount = signCount
        self.backedUp = backedUp
        self.userVerified = userVerified
    }
}

/// The relying party's checks of the two WebAuthn ceremonies (Level 3 §7.1 registration, §7.2
/// authentication): pure functions of what the client sent, the challenge the server issued and what
/// the server stored, with no store and no HTTP. User verification is required in both.
public enum WebAuthnVerifier {
    /// Checks a registration (§7.1): clientData `type` is `webauthn.create`, its challenge is `challenge`
    /// (compared in constant time), its origin is one of `relyingParty.origins`, it is not cross-origin
    /// (`crossOrigin` true or a `topOrigin`); the attestation object parses, its rpIdHash is SHA-256 of
    /// `relyingParty.id`, UP and UV are set, AT is set and the attested credential id is the one sent;
    /// the key is ES256 or EdDSA; the statement is `none` or `packed` self attestation whose signature
    /// over authData || SHA-256(clientDataJSON) the new key verifies.
    /// - Throws: `WebAuthnError`, the first rule that failed.
    public static func verifyRegistration(_ response: WebAuthnRegistration, challenge: Data,
                                          relyingParty: WebAuthnRelyingParty) throws(WebAuthnError) -> VerifiedCredential {
        try checkClientData(response.clientDataJSON, type: "webauthn.create", challenge: challenge, relyingParty: relyingParty)
        let attestation = try AttestationObject(response.attestationObject)
        let authenticatorData = attestation.authenticatorData
        try checkAuthenticatorData(authenticatorData, relyingParty: relyingParty)
        guard let credential = authenticatorData.attestedCredential else { throw .missingCredential }
        guard credential.credentialID == response.credentialID else { throw .credentialMismatch }
        let key = try COSEKey(credential.publicKeyCBOR, bytes: credential.publicKey)
        if case .packedSelf(let algorithm, let signature) = attestation.statement {
            guard algorithm == key.algorithm else { throw .malformed("packed attestation alg is not the credential key's") }
            guard key.isValidSignature(signature, for: signedBytes(authenticatorData, response.clientDataJSON)) else {
                throw .badSignature
            }
        }
        return VerifiedCredential(
            credentialID: credential.credentialID, publicKey: credential.publicKey, algorithm: key.algorithm,
            signCount: authenticatorData.signCount, backupEligible: authenticatorData.flags.contains(.backupEligible),
            backedUp: authenticatorData.flags.contains(.backedUp), aaguid: credential.aaguid,
            attestationFormat: attestation.format, transports: response.transports)
    }

    /// The clientData checks both ceremonies share: type, challenge, origin (and not cross-origin).
    static func checkClientData(_ json: Data, type: String, challenge: Data,
                                relyingParty: WebAuthnRelyingParty) throws(WebAuthnError) {
        let clientData = try CollectedClientData(json)
        guard clientData.type == type else { throw .wrongType }
        guard ConstantTime.equal(clientData.challenge, challenge) else { throw .challengeMismatch }
        guard relyingParty.origins.contains(clientData.origin) else {
            throw .originNotAllowed(clientData.origin.count <= 100 ? clientData.origin : String(clientData.origin.prefix(100)) + "…")
        }
    }

    /// The authenticator-data checks both ceremonies share: rpIdHash, UP, UV.
    static func checkAuthenticatorData(_ data: AuthenticatorData, relyingParty: WebAuthnRelyingParty) throws(WebAuthnError) {
        guard data.rpIDHash == Data(SHA256.hash(data: Data(relyingParty.id.utf8))) else { throw .rpIDMismatch }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        guard data.flags.contains(.userVerified) else { throw .userNotVerified }
    }

    /// What the authenticator signs: authenticator data || SHA-256(clientDataJSON).
    static func signedBytes(_ data: AuthenticatorData, _ clientDataJSON: Data) -> Data {
        data.bytes + Data(SHA256.hash(data: clientDataJSON))
    }
}
