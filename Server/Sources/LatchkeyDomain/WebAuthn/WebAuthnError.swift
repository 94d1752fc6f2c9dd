import Foundation

/// Why a WebAuthn registration or assertion was refused. Each case is one rule of the ceremony
/// (WebAuthn Level 3 §7.1, §7.2); the associated text says which part was malformed or which value
/// was not allowed, and never carries a challenge, key or signature.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A structure could not be read: CBOR, clientDataJSON, authenticator data, lengths.
    case malformed(String)
    /// clientDataJSON's `type` is not the ceremony's (`webauthn.create` / `webauthn.get`).
    case wrongType
    /// clientDataJSON's `challenge` is not the one the server issued.
    case challengeMismatch
    /// clientDataJSON's `origin` is not one of the relying party's origins.
    case originNotAllowed(String)
    /// clientDataJSON says the ceremony ran in a cross-origin frame (`crossOrigin` true or a `topOrigin`).
    case crossOrigin
    /// The authenticator data's rpIdHash is not SHA-256 of the relying party's id.
    case rpIDMismatch
    /// The authenticator did not report the user present (UP).
    case userNotPresent
    /// The authenticator did not report the user verified (UV); the server requires it.
    case userNotVerified
    /// The flags contradict each other (backed up without being backup eligible).
    case invalidFlags(String)
    /// A registration whose authenticator data carries no attested credential (AT clear).
    case missingCredential
    /// The credential id the client sent is not the one the authenticator attested.
    case credentialMismatch
    /// A COSE key type or algorithm other than ES256 (-7, EC2 P-256) and EdDSA (-8, OKP Ed25519).
    case unsupportedAlgorithm(Int)
    /// A COSE key that is not a valid public key of its type (a point not on the curve, a wrong length).
    case invalidPublicKey
    /// An attestation format or statement the server does not verify (only `none` and `packed` self attestation).
    case unsupportedAttestation(String)
    /// A signature that the credential's public key does not verify.
    case badSignature
    /// A signature counter that did not increase: the authenticator may have been cloned.
    case signCountRegression
    /// The backup eligibility (BE) of a credential changed since registration.
    case backupEligibilityChanged

    public var description: String {
        switch self {
        case .malformed(let what): "malformed: \(what)"
        case .wrongType: "clientDataJSON has the wrong type"
        case .challengeMismatch: "the challenge is not the one issued"
        case .originNotAllowed(let origin): "origin \(origin) is not allowed"
        case .crossOrigin: "cross-origin ceremonies are not accepted"
        case .rpIDMismatch: "the authenticator data is for another relying party"
        case .userNotPresent: "the user was not present"
        case .userNotVerified: "the user was not verified"
        case .invalidFlags(let what): "invalid authenticator flags: \(what)"
        case .missingCredential: "the authenticator data carries no credential"
        case .credentialMismatch: "the credential id is not the attested one"
        case .unsupportedAlgorithm(let algorithm): "COSE algorithm \(algorithm) is not supported"
        case .invalidPublicKey: "the credential public key is invalid"
        case .unsupportedAttestation(let what): "attestation \(what) is not supported"
        case .badSignature: "the signature does not verify"
        case .signCountRegression: "the signature counter did not increase"
        case .backupEligibilityChanged: "the credential's backup eligibility changed"
        }
    }
}
