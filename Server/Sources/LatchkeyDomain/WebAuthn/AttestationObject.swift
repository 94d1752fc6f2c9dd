import Foundation

/// A registration's attestation object (WebAuthn Level 3 §6.5.4): the map `{fmt, attStmt, authData}`.
///
/// Two statements are accepted: `none` (an empty statement: the client or authenticator vouches for
/// nothing, what Apple's, Google's and most synced passkeys send) and `packed` self attestation
/// (`{alg, sig}` without `x5c`: the new credential signs its own registration). A `packed` statement
/// with a certificate chain (`x5c`) and every other format (`tpm`, `android-key`, `fido-u2f`, `apple`, …)
/// are refused: checking a chain needs trust anchors (FIDO metadata) the server does not hold, and
/// registration options ask for `"attestation": "none"`, so clients strip such statements anyway.
///
/// Parsing needs only Foundation (the fuzz target compiles it on its own).
public struct AttestationObject: Sendable, Equatable {
    /// An accepted attestation statement.
    public enum Statement: Sendable, Equatable {
        /// `none`.
        case none
        /// `packed` self attestation: `signature` over authData || SHA-256(clientDataJSON) by the
        /// credential key, with COSE algorithm `algorithm`.
        case packedSelf(algorithm: Int, signature: Data)
    }

    /// `fmt` as sent.
    public var format: String
    public var statement: Statement
    public var authenticatorData: AuthenticatorData

    /// Parses `data`.
    /// - Throws: `WebAuthnError.malformed` when it is not the map of the three fields with the right
    ///   types or its authenticator data does not parse; `WebAuthnError.unsupportedAttestation` for a
    ///   format or statement other than the two accepted.
    public init(_ data: Data) throws(WebAuthnError) {
        let object: CBOR
        do {
            // The client assembles this map, so key order is not held to CTAP2's canonical one.
            object = try CBORDecoder.decode(data)
        } catch {
            throw .malformed("attestation object: \(error)")
        }
        guard case .map = object else { throw .malformed("attestation object is not a map") }
        guard let format = object["fmt"]?.text else { throw .malformed("attestation object has no text fmt") }
        guard let statement = object["attStmt"], case .map(let fields) = statement else {
            throw .malformed("attestation object has no attStmt map")
        }
        guard let authData = object["authData"]?.bytes else { throw .malformed("attestation object has no authData bytes") }
        self.format = format
        switch format {
        case "none":
            guard fields.isEmpty else { throw .malformed("attestation none has a non-empty attStmt") }
            self.statement = .none
        case "packed":
            if statement["x5c"] != nil { throw .unsupportedAttestation("packed with a certificate chain (x5c)") }
            if statement["ecdaaKeyId"] != nil { throw .unsupportedAttestation("packed ECDAA") }
            guard let algorithm = statement["alg"]?.int else { throw .malformed("packed attStmt has no integer alg") }
            guard let signature = statement["sig"]?.bytes else { throw .malformed("packed attStmt has no sig bytes") }
            guard fields.count == 2 else { throw .malformed("packed attStmt has fields other than alg and sig") }
            self.statement = .packedSelf(algorithm: algorithm, signature: signature)
        default:
            throw .unsupportedAttestation(format.count <= 32 ? format : String(format.prefix(32)) + "…")
        }
        authenticatorData = try AuthenticatorData(authData)
    }
}
