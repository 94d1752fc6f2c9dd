import Crypto
import Foundation
import JWTKit
import LatchkeyCore
import Synchronization

/// A verified DPoP proof (RFC 9449): the request was signed by the holder of a device key.
public struct DPoPProof: Sendable, Equatable {
    /// The RFC 7638 thumbprint of the proof's public key (base64url SHA-256): the device's identity
    /// and a bound token's `cnf.jkt`.
    public let thumbprint: String
    /// The proof's unique id.
    public let jti: String
}

/// The claims of a DPoP proof.
package struct DPoPClaims: JWTPayload, Equatable {
    package let jti: String
    package let htm: String
    package let htu: String
    package let iat: Int
    package let ath: String?
    package let nonce: String?

    // jwt-kit only parses the proof; `DPoPVerifier.verify` checks the signature and the claims.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A signed proof without a current nonce of its key: refused as `use_dpop_nonce`, with the nonce
/// to sign with (which only the key's holder can use).
package struct DPoPNonceRequired: Error {
    package let thumbprint: String
}

/// Verifies the `DPoP` header of a request: a compact JWS with `typ: dpop+jwt`, `alg: ES256`, the
/// device's P-256 public key as `jwk`, signed by that key (parsed by jwt-kit, verified by swift-crypto), whose
/// claims name this request (`htm`, `htu` as seen through the public base URL), were issued within
/// `window` seconds, hash the access token sent with it (`ath`), carry the server's nonce when the
/// call asks for one, and carry a `jti` (whether that was seen before is `ProofReplay`'s to tell).
/// Every refusal is `invalid_dpop_proof` or `use_dpop_nonce` (HTTP 401); nothing about a proof is
/// logged but its thumbprint.
public struct DPoPVerifier: Sendable {
    package let publicURL: PublicBaseURL
    package let nonces: DPoPNonces
    /// Keys already validated, by their `jwk` coordinates: a device sends the same key with every
    /// proof, and building and checking the point cost as much as parsing the proof.
    package let keys = KeyCache()
    /// Protected headers already parsed and validated, by their exact text.
    package let headers = ProofHeaderCache()
    /// The claims' decoder (stateless once configured, so shared).
    private static let claimsDecoder = JSONDecoder()
    package let now: @Sendable () -> Date
    /// How far `iat` may be from the server's clock, in seconds, either way.
    package static let window: TimeInterval = 60
    /// The longest proof accepted (a P-256 proof is about 600 bytes).
    package static let maxLength = 4096

    public init(publicURL: PublicBaseURL, nonces: DPoPNonces, now: @escaping @Sendable () -> Date) {
        self.publicURL = publicURL
        self.nonces = nonces
        self.now = now
    }

    /// The proof of a request, verified but for replay (`ProofReplay.admit`, which the caller runs
    /// next). `accessToken` is the token sent with it, if any.
    /// Throws `DomainError(.invalidDPoPProof)`, or `DPoPNonceRequired` when `requireNonce` and the
    /// proof lacks a current nonce handed to its key.
    public func verify(_ proof: String, method: String, path: String, accessToken: String?,
                       requireNonce: Bool) async throws -> DPoPProof {
        guard proof.utf8.count <= Self.maxLength else { throw Self.invalid("The DPoP proof is too long.") }
        // A compact JWS is base64url segments and dots, nothing else: checked first, so equal text
        // is equal bytes (the header cache's key) and no segment holds padding or `+` and `/`.
        guard let dots = Self.dots(proof), dots.count >= 2 else { throw Self.invalid("The DPoP proof is not a JWS.") }
        let (firstDot, lastDot) = (dots.first, dots.last)
        // A device sends the same protected header (typ, alg, jwk) with every proof: once jwt-kit has
        // parsed and this verifier has validated a header, its exact text names its key
        // (`ProofHeaderCache`), and only the claims are decoded again.
        let headerText = proof[..<firstDot]
        let key: (key: P256.Signing.PublicKey, thumbprint: String)
        let claims: DPoPClaims
        let signatureBytes: Data
        let known = headers.key(for: headerText)
        if let known {
            let payloadText = proof[proof.utf8.index(after: firstDot)..<lastDot]
            guard dots.count == 2, let payload = Data(base64URL: payloadText),
                  let decoded = payload.withUnsafeBytes({ DPoPClaims(scanning: $0) })
                    ?? (try? Self.claimsDecoder.decode(DPoPClaims.self, from: payload)),
                  let signature = Data(base64URL: proof[proof.utf8.index(after: lastDot)...]) else {
                throw Self.invalid("The DPoP proof is not a JWS with the claims jti, htm, htu and iat.")
            }
            (key, claims, signatureBytes) = (known, decoded, signature)
        } else {
            let parsed: (header: JWTHeader, payload: DPoPClaims, signature: Data)
            do {
                parsed = try DefaultJWTParser().parse(Array(proof.utf8), as: DPoPClaims.self)
            } catch {
                throw Self.invalid("The DPoP proof is not a JWS with the claims jti, htm, htu and iat.")
            }
            let header = parsed.header
            guard header.typ == "dpop+jwt" else { throw Self.invalid("The DPoP proof's typ must be dpop+jwt.") }
            guard header.alg == "ES256" else { throw Self.invalid("The DPoP proof must be signed with ES256.") }
            key = try keys.key(for: header.jwk)
            (claims, signatureBytes) = (parsed.payload, parsed.signature)
        }
        // The one ES256 verification is swift-crypto's, over the signing input as sent (hashed
        // where the text lies, without a copy).
        let signingInput = Self.sha256(proof.utf8[..<lastDot])
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
              key.key.isValidSignature(signature, for: signingInput) else {
            throw Self.invalid("The DPoP proof's signature does not verify with its jwk.")
        }
        // Only a header whose key signed this proof is kept: unsigned junk cannot fill the cache.
        if known == nil { headers.remember(headerText, key: key) }
        guard claims.htm == method else { throw Self.invalid("The DPoP proof's htm is not this request's method.") }
        guard Self.names(claims.htu, base: publicURL.value, path: path) else {
            throw Self.invalid("The DPoP proof's htu is not this request's URL.")
        }
        let time = now()
        guard abs(time.timeIntervalSince1970 - Double(claims.iat)) <= Self.window else {
            throw Self.invalid("The DPoP proof's iat is outside the accepted window.")
        }
        if let accessToken {
            guard let ath = claims.ath, Self.isBase64URL(ath, of: Self.sha256(accessToken.utf8[...])) else {
                throw Self.invalid("The DPoP proof's ath is not the hash of the access token.")
            }
        }
        if requireNonce {
            guard let nonce = claims.nonce, nonces.isValid(nonce, for: key.thumbprint, at: time) else {
                throw DPoPNonceRequired(thumbprint: key.thumbprint)
            }
        }
        // A proof without a usable id could never be told from its replay.
        guard !claims.jti.isEmpty, claims.jti.utf8.count <= 256 else { throw Self.invalid("The DPoP proof's jti must be 1 to 256 bytes.") }
        return DPoPProof(thumbprint: key.thumbprint, jti: claims.jti)
    }

    /// The proof's public key and its RFC 7638 thumbprint; refuses anything but a public P-256 key.
    package static func publicKey(_ jwk: [String: JWTHeaderField]?) throws -> (key: P256.Signing.PublicKey, thumbprint: String) {
        guard let jwk, jwk["kty"]?.asString == "EC", jwk["crv"]?.asString == "P-256",
              let x = jwk["x"]?.asString, let y = jwk["y"]?.asString else {
            throw invalid("The DPoP proof's jwk must be a P-256 public key.")
        }
        guard jwk["d"] == nil else { throw invalid("The DPoP proof's jwk must not contain a private key.") }
        guard let xBytes = Data(base64URL: x), let yBytes = Data(base64URL: y), xBytes.count == 32, yBytes.count == 32,
              let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + xBytes + yBytes) else {
            throw invalid("The DPoP proof's jwk is not a point on P-256.")
        }
        return (key, thumbprint(x: x, y: y))
    }

    /// The RFC 7638 thumbprint of a P-256 key given by its base64url coordinates: the required
    /// members in lexicographic order, no whitespace, hashed with SHA-256.
    package static func thumbprint(x: String, y: String) -> String {
        Data(SHA256.hash(data: Data(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8))).base64URL
    }

    /// The RFC 7638 thumbprint of a P-256 public key.
    public static func thumbprint(of key: P256.Signing.PublicKey) -> String {
        let point = key.rawRepresentation
        return thumbprint(x: Data(point.prefix(32)).base64URL, y: Data(point.suffix(32)).base64URL)
    }

    /// The first and last dot of a text that holds only the bytes of a compact JWS (the base64url
    /// alphabet and the dot) and how many dots it has; nil for any other byte. One pass: this runs
    /// on every proof.
    private static func dots(_ text: String) -> (first: String.Index, last: String.Index, count: Int)? {
        func scan(_ bytes: some Sequence<UInt8>) -> (first: Int, last: Int, count: Int)? {
            var first = -1, last = -1, count = 0
            var offset = 0
            for byte in bytes {
                switch jwsByte[Int(byte)] {
                case 1: break
                case 2:
                    if first < 0 { first = offset }
                    last = offset
                    count += 1
                default: return nil
                }
                offset += 1
            }
            return (first, last, count)
        }
        // Read where the text lies when it can be (a native string), else through its view.
        guard let (first, last, count) = text.utf8.withContiguousStorageIfAvailable(scan) ?? scan(text.utf8) else { return nil }
        guard count > 0 else { return (text.startIndex, text.startIndex, 0) }
        let utf8 = text.utf8
        return (utf8.index(utf8.startIndex, offsetBy: first), utf8.index(utf8.startIndex, offsetBy: last), count)
    }

    /// For each byte: 1 for the base64url alphabet, 2 for the dot, 0 for anything else.
    private static let jwsByte: [UInt8] = (0...255).map { byte in
        Base64URL.isAlphabet(UInt8(byte)) ? 1 : byte == Int(UInt8(ascii: ".")) ? 2 : 0
    }

    /// Whether `text` is `digest` in unpadded base64url, compared character by character as the
    /// digest is encoded (the `ath` check of every bound request builds no string).
    package static func isBase64URL(_ text: String, of digest: SHA256Digest) -> Bool {
        let alphabet = Base64URL.alphabet
        return digest.withUnsafeBytes { bytes in
            var sent = text.utf8.makeIterator()
            var accumulator: UInt32 = 0, bits: UInt32 = 0
            for byte in bytes {
                accumulator = accumulator << 8 | UInt32(byte)
                bits += 8
                while bits >= 6 {
                    bits -= 6
                    guard sent.next() == alphabet[Int(accumulator >> bits & 0x3F)] else { return false }
                }
                accumulator &= (1 << bits) - 1
            }
            if bits > 0, sent.next() != alphabet[Int(accumulator << (6 - bits) & 0x3F)] { return false }
            return sent.next() == nil
        }
    }

    /// SHA-256 of UTF-8 text, read where it lies when it can be.
    private static func sha256(_ text: Substring.UTF8View) -> SHA256Digest {
        text.withContiguousStorageIfAvailable { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
            ?? SHA256.hash(data: Array(text))
    }

    /// Whether `htu` without its query and fragment (RFC 9449 §4.3) is exactly `base` then `path`,
    /// compared byte by byte without building either (this runs on every proof). A `?` or `#` in
    /// `base` or `path` never matches, as it could not once `htu` was stripped.
    package static func names(_ htu: String, base: String, path: String) -> Bool {
        var sent = htu.utf8.makeIterator()
        func follows(_ part: String) -> Bool {
            part.utf8.allSatisfy { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") && sent.next() == $0 }
        }
        guard follows(base), follows(path) else { return false }
        let rest = sent.next()
        return rest == nil || rest == UInt8(ascii: "?") || rest == UInt8(ascii: "#")
    }


    package static func invalid(_ message: LocalizableText) -> DomainError {
        DomainError(.invalidDPoPProof, message: message, field: "DPoP")
    }
}

/// Validated P-256 keys by their `jwk` coordinates, bounded: past `capacity` it starts again.
package final class KeyCache: Sendable {
    private let keys = Mutex<[String: (key: P256.Signing.PublicKey, thumbprint: String)]>([:])
    package static let capacity = 10_000

    package func key(for jwk: [String: JWTHeaderField]?) throws -> (key: P256.Signing.PublicKey, thumbprint: String) {
        let coordinates = (jwk?["x"]?.asString ?? "") + "." + (jwk?["y"]?.asString ?? "")
        // The other members are checked every time, so a cached point never excuses a private key or another curve.
        if let cached = keys.withLock({ $0[coordinates] }), jwk?["kty"]?.asString == "EC", jwk?["crv"]?.asString == "P-256",
           jwk?["d"] == nil {
            return cached
        }
        let parsed = try DPoPVerifier.publicKey(jwk)
        keys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[coordinates] = parsed
        }
        return parsed
    }
}

/// Protected headers of DPoP proofs that jwt-kit parsed and `DPoPVerifier` validated (typ, alg, a
/// public P-256 jwk) and whose key signed the proof, by their exact base64url text (ASCII only,
/// checked first, so equal text is equal bytes): a hit names the key without parsing JSON again.
/// Bounded: past `capacity` it starts again (devices then take jwt-kit's path once more).
package final class ProofHeaderCache: Sendable {
    private let known = Mutex<[Substring: (key: P256.Signing.PublicKey, thumbprint: String)]>([:])
    package static let capacity = 10_000

    package func key(for text: Substring) -> (key: P256.Signing.PublicKey, thumbprint: String)? {
        known.withLock { $0[text] }
    }

    package func remember(_ text: Substring, key: (key: P256.Signing.PublicKey, thumbprint: String)) {
        // A P-256 header is about 200 bytes: a longer one (extra members) is not worth keeping.
        guard text.utf8.count <= 1024, known.withLock({ $0[text] == nil }) else { return }
        // A copy of the text: the cache must not keep the whole proof alive.
        let text = Substring(String(text))
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[text] = key
        }
    }
}
