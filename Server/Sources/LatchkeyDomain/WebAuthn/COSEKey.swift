import Crypto
import Foundation

/// A credential public key in COSE_Key form (RFC 9052 §7, RFC 9053) of one of the two algorithms the
/// server accepts: ES256 (alg -7: EC2, curve P-256) and EdDSA (alg -8: OKP, curve Ed25519). Every
/// passkey provider offers ES256; EdDSA is there for security keys that prefer it. RS256 and the rest
/// are refused, so registration options offer only these two.
///
/// The store keeps `bytes`; each use decodes them again.
public struct COSEKey: Sendable {
    /// ES256 (ECDSA with SHA-256 on P-256).
    public static let es256 = -7
    /// EdDSA (here Ed25519).
    public static let edDSA = -8
    /// The COSE algorithms accepted, most preferred first (registration options list them in this order).
    public static let supportedAlgorithms = [es256, edDSA]

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// The COSE algorithm.
    public let algorithm: Int
    /// The COSE_Key bytes.
    public let bytes: Data
    private let key: Key

    /// Decodes COSE_Key `bytes` as an authenticator encodes them (canonical CBOR).
    /// - Throws: `WebAuthnError.malformed` when they are not a CBOR map with integer kty and alg,
    ///   `.unsupportedAlgorithm` for another key type or algorithm, `.invalidPublicKey` for a wrong curve
    ///   or coordinate length, a point not on the curve, or a key that carries private material (`d`).
    public init(bytes: Data) throws(WebAuthnError) {
        let map: CBOR
        do {
            map = try CBORDecoder.decode(bytes, canonicalMapOrder: true)
        } catch {
            throw .malformed("credential public key: \(error)")
        }
        try self.init(map, bytes: bytes)
    }

    /// A key already decoded from `bytes`.
    init(_ map: CBOR, bytes: Data) throws(WebAuthnError) {
        guard case .map = map else { throw .malformed("credential public key is not a map") }
        // Labels: 1 kty, 3 alg, -1 crv, -2 x, -3 y, -4 d (private).
        guard let keyType = map[1]?.int, let algorithm = map[3]?.int else {
            throw .malformed("credential public key lacks an integer kty or alg")
        }
        guard map[-4] == nil else { throw .invalidPublicKey }
        switch (keyType, algorithm) {
        case (2, COSEKey.es256):
            guard map[-1]?.int == 1, let x = map[-2]?.bytes, let y = map[-3]?.bytes, x.count == 32, y.count == 32 else {
                throw .invalidPublicKey
            }
            do {
                key = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
            } catch {
                throw .invalidPublicKey
            }
        case (1, COSEKey.edDSA):
            guard map[-1]?.int == 6, let x = map[-2]?.bytes, x.count == 32, map[-3] == nil else { throw .invalidPublicKey }
            do {
                key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            } catch {
                throw .invalidPublicKey
            }
        default:
            throw .unsupportedAlgorithm(algorithm)
        }
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// Whether `signature` is this key's over `message`: for ES256 a DER-encoded ECDSA signature (as
    /// WebAuthn sends it) over SHA-256 of `message`, for EdDSA a 64-byte Ed25519 signature.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        switch key {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: message)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: message)
        }
    }
}
