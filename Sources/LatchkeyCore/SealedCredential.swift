import Foundation

/// A credential value sealed for the server with HPKE (RFC 9180, base mode,
/// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM): the spec's `encryptionSettings`.
///
/// It travels in place of the value, as one string:
/// `hpke1.<key id>.<encapsulated key, base64url>.<ciphertext, base64url>`. The HPKE `info` names
/// the scheme and binds the value to its field, its operation and the request's DPoP proof (the
/// device key's thumbprint and the proof's `jti`), so a sealed value opens only where it was sealed
/// for, under a proof only the device key can sign, once. (The binding is in `info`,
/// not in the additional data, so that single-shot HPKE APIs without additional data, such as
/// Python `cryptography`'s, can seal too; the additional data is empty.)
public struct SealedCredential: Sendable, Equatable {
    public static let prefix = "hpke1."
    /// The suite, as the server publishes it.
    public static let suite = "DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM"

    /// The server key it is sealed to (`EncryptionSettings.keys`).
    public var keyID: String
    public var encapsulatedKey: Data
    public var ciphertext: Data

    public init(keyID: String, encapsulatedKey: Data, ciphertext: Data) {
        self.keyID = keyID
        self.encapsulatedKey = encapsulatedKey
        self.ciphertext = ciphertext
    }

    /// Whether `value` is in the sealed form (whether or not it opens).
    public static func isSealed(_ value: String) -> Bool { value.hasPrefix(prefix) }

    /// Parses the compact form; `nil` when `text` is not one.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].count <= 64,
              let encapsulated = Data(base64URL: parts[1]), let ciphertext = Data(base64URL: parts[2]),
              !encapsulated.isEmpty, ciphertext.count > 16 else { return nil }
        self.init(keyID: String(parts[0]), encapsulatedKey: encapsulated, ciphertext: ciphertext)
    }

    /// The compact form.
    public var text: String {
        Self.prefix + keyID + "." + encapsulatedKey.base64URL + "." + ciphertext.base64URL
    }

    /// The HPKE `info` of a seal: the scheme, the field (its JSON pointer in the request body, e.g.
    /// `/userProfile/password`), the operation id, the RFC 7638 thumbprint of the key that signs the
    /// request's DPoP proof and the proof's `jti`, NUL-separated.
    public static func info(field: String, operation: String, keyThumbprint: String, proofID: String) -> Data {
        Data("latchkey credential seal v1\u{0}\(field)\u{0}\(operation)\u{0}\(keyThumbprint)\u{0}\(proofID)".utf8)
    }

    /// At most this many sealed values in one request (a bound on the work a request can ask for).
    public static let maximumPerRequest = 64
}
