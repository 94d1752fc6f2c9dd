import Crypto
import Foundation

/// A platform authenticator and client in software, written from WebAuthn Level 3 and CTAP 2.1
/// independently of the server's parsing: it encodes its own CBOR (CTAP2 canonical map order),
/// COSE keys (ES256 on P-256, EdDSA on Ed25519), authenticator data with its flags and counter,
/// `none` and `packed` self attestation, and the clientDataJSON a browser or an OS would send.
/// Each part a test may spoil is a parameter, so an attack is a valid response but for one thing.
final class SoftwareAuthenticator {
    enum Algorithm { case es256, edDSA }

    /// A credential the authenticator holds (a discoverable one: it keeps the user handle).
    final class Credential {
        let id: Data
        let algorithm: Algorithm
        let p256: P256.Signing.PrivateKey
        let ed25519: Curve25519.Signing.PrivateKey
        let userHandle: Data
        var signCount: UInt32

        init(algorithm: Algorithm, userHandle: Data, signCount: UInt32) {
            id = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            self.algorithm = algorithm
            p256 = P256.Signing.PrivateKey()
            ed25519 = Curve25519.Signing.PrivateKey()
            self.userHandle = userHandle
            self.signCount = signCount
        }

        /// The COSE_Key of the public key.
        var coseKey: [UInt8] {
            switch algorithm {
            case .es256:
                let raw = p256.publicKey.rawRepresentation
                return TestCBOR.encodeMap([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                                 (.int(-2), .bytes(Array(raw.prefix(32)))), (.int(-3), .bytes(Array(raw.suffix(32))))])
            case .edDSA:
                return TestCBOR.encodeMap([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)),
                                 (.int(-2), .bytes(Array(ed25519.publicKey.rawRepresentation)))])
            }
        }

        var coseAlgorithm: Int { algorithm == .es256 ? -7 : -8 }

        /// ES256 signatures are DER (WebAuthn §6.5.5), EdDSA's the raw 64 bytes.
        func sign(_ message: Data) -> Data {
            switch algorithm {
            case .es256: try! p256.signature(for: message).derRepresentation
            case .edDSA: try! ed25519.signature(for: message)
            }
        }
    }

    /// The flags of authenticator data (WebAuthn §6.1).
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let userPresent = Flags(rawValue: 0x01)
        static let userVerified = Flags(rawValue: 0x04)
        static let backupEligible = Flags(rawValue: 0x08)
        static let backedUp = Flags(rawValue: 0x10)
        static let attestedCredential = Flags(rawValue: 0x40)
        /// A synced passkey's: present, verified, backup eligible, backed up.
        static let passkey: Flags = [.userPresent, .userVerified, .backupEligible, .backedUp]
    }

    /// The origin the client reports (its web origin, or an app's).
    var origin: String
    /// The relying party id the authenticator scopes credentials to (hashed into authenticator data).
    var rpID: String
    var aaguid = Data((0..<16).map { UInt8($0 + 1) })
    private(set) var credentials: [Credential] = []

    init(origin: String, rpID: String) {
        self.origin = origin
        self.rpID = rpID
    }

    /// `navigator.credentials.create` for `publicKey` (the creation options' JSON): a new
    /// credential and its `RegistrationResponseJSON`.
    func create(_ publicKey: [String: Any], algorithm: Algorithm = .es256, format: String = "none", flags: Flags = .passkey,
                signCount: UInt32 = 0, challenge: Data? = nil) -> (credential: Credential, json: [String: Any]) {
        let user = publicKey["user"] as? [String: Any] ?? [:]
        let credential = Credential(algorithm: algorithm, userHandle: Self.data(user["id"] as? String ?? ""), signCount: signCount)
        let clientData = clientDataJSON(type: "webauthn.create", challenge: challenge ?? Self.data(publicKey["challenge"] as? String ?? ""))
        let attested = aaguid + Data([UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xff)]) + credential.id
            + Data(credential.coseKey)
        let authData = authenticatorData(flags: flags.union(.attestedCredential), signCount: signCount) + attested
        let statement: TestCBOR
        if format == "packed" {
            let signature = credential.sign(authData + Data(SHA256.hash(data: clientData)))
            statement = .map([(.text("alg"), .int(credential.coseAlgorithm)), (.text("sig"), .bytes(Array(signature)))])
        } else {
            statement = .map([])
        }
        let attestation = TestCBOR.encodeMap([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(Array(authData)))])
        credentials.append(credential)
        let json: [String: Any] = [
            "id": Self.b64(credential.id), "rawId": Self.b64(credential.id), "type": "public-key",
            "response": ["clientDataJSON": Self.b64(clientData), "attestationObject": Self.b64(Data(attestation)),
                         "transports": ["internal", "hybrid"]],
            "clientExtensionResults": [String: Any](),
        ]
        return (credential, json)
    }

    /// `navigator.credentials.get` for `publicKey` (the request options' JSON) with `credential`:
    /// the `AuthenticationResponseJSON`. The counter moves on by one unless `signCount` says.
    func get(_ publicKey: [String: Any], with credential: Credential, flags: Flags = .passkey, signCount: UInt32? = nil,
             challenge: Data? = nil, origin: String? = nil, crossOrigin: Bool = false, rpID: String? = nil,
             userHandle: Data? = nil, tamper: Bool = false) -> [String: Any] {
        let count = signCount ?? (credential.signCount == 0 ? 0 : credential.signCount + 1)
        credential.signCount = count
        let clientData = clientDataJSON(type: "webauthn.get", challenge: challenge ?? Self.data(publicKey["challenge"] as? String ?? ""),
                                        origin: origin, crossOrigin: crossOrigin)
        let authData = authenticatorData(flags: flags, signCount: count, rpID: rpID)
        var signature = credential.sign(authData + Data(SHA256.hash(data: clientData)))
        if tamper { signature[signature.count - 1] ^= 0x01 }
        return [
            "id": Self.b64(credential.id), "rawId": Self.b64(credential.id), "type": "public-key",
            "response": ["clientDataJSON": Self.b64(clientData), "authenticatorData": Self.b64(authData),
                         "signature": Self.b64(signature), "userHandle": Self.b64(userHandle ?? credential.userHandle)],
            "clientExtensionResults": [String: Any](),
        ]
    }

    private func clientDataJSON(type: String, challenge: Data, origin: String? = nil, crossOrigin: Bool = false) -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(Self.b64(challenge))","origin":"\#(origin ?? self.origin)","crossOrigin":\#(crossOrigin)}"#.utf8)
    }

    private func authenticatorData(flags: Flags, signCount: UInt32, rpID: String? = nil) -> Data {
        Data(SHA256.hash(data: Data((rpID ?? self.rpID).utf8))) + Data([flags.rawValue])
            + Data([UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xff), UInt8(signCount >> 8 & 0xff), UInt8(signCount & 0xff)])
    }

    static func b64(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(_ base64URL: String) -> Data {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text) ?? Data()
    }
}

/// The CBOR the authenticator writes (RFC 8949): unsigned and negative integers, byte and text
/// strings, maps in CTAP2 canonical key order (shorter encoded key first, then bytewise).
indirect enum TestCBOR {
    case int(Int), bytes([UInt8]), text(String), map([(TestCBOR, TestCBOR)])

    var encoded: [UInt8] {
        switch self {
        case .int(let value): value >= 0 ? Self.head(0, UInt64(value)) : Self.head(1, UInt64(-1 - value))
        case .bytes(let bytes): Self.head(2, UInt64(bytes.count)) + bytes
        case .text(let text): Self.head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .map(let pairs):
            Self.head(5, UInt64(pairs.count)) + pairs.map { ($0.0.encoded, $0.1.encoded) }
                .sorted { $0.0.count != $1.0.count ? $0.0.count < $1.0.count : $0.0.lexicographicallyPrecedes($1.0) }
                .flatMap { $0.0 + $0.1 }
        }
    }

    static func encodeMap(_ pairs: [(TestCBOR, TestCBOR)]) -> [UInt8] { TestCBOR.map(pairs).encoded }

    private static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        let type = major << 5
        switch value {
        case 0..<24: return [type | UInt8(value)]
        case 24..<256: return [type | 24, UInt8(value)]
        case 256..<65536: return [type | 25, UInt8(value >> 8), UInt8(value & 0xff)]
        default: return [type | 26] + (0..<4).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xff) }
        }
    }
}
