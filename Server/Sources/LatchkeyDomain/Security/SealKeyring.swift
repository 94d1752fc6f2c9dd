import Crypto
import Foundation
import LatchkeyCore
import Logging

/// The server's HPKE keys for sealed credentials (`SealedCredential`): the current key, which the
/// served settings name and apps seal to, and the keys of before a rotation, which still open
/// until their `until`. A key's id is the first 16 hex digits of the SHA-256 of its public key.
public struct SealKeyring: Sendable {
    public struct Key: Sendable {
        public let id: String
        let privateKey: P256.KeyAgreement.PrivateKey
        /// After this, seals to this key are refused (`nil`: the current key).
        public let until: Date?
        /// The public key, X9.63 uncompressed (what HPKE's DHKEM(P-256) encapsulates to), base64.
        public var publicKey: String { privateKey.publicKey.x963Representation.base64EncodedString() }
        /// The key's pin for an app that pins it (`LatchkeyContext.sealKeyPins`): the SHA-256 of the
        /// X9.63 public key, base64.
        public var pin: String { Data(SHA256.hash(data: privateKey.publicKey.x963Representation)).base64EncodedString() }
    }

    public let current: Key
    public let previous: [Key]

    public init(current: P256.KeyAgreement.PrivateKey, previous: [(P256.KeyAgreement.PrivateKey, until: Date)] = []) {
        self.current = Key(id: Self.id(of: current.publicKey), privateKey: current, until: nil)
        self.previous = previous.map { Key(id: Self.id(of: $0.0.publicKey), privateKey: $0.0, until: $0.until) }
    }

    static func id(of publicKey: P256.KeyAgreement.PublicKey) -> String {
        SHA256.hash(data: publicKey.x963Representation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The keys a seal may name at `now`: the current one and the previous ones not yet retired.
    public func keys(at now: Date) -> [Key] {
        [current] + previous.filter { $0.until.map { $0 > now } ?? true }
    }

    /// Why a sealed value was refused; the edge answers 400 naming the field.
    public enum Refusal: Error, Equatable {
        /// Not in the compact form.
        case malformed
        /// Sealed to a key this server does not hold, or holds no longer.
        case unknownKey
        /// It does not open: another field, operation or proof, or a forgery.
        case doesNotOpen
    }

    /// Opens `text` sealed for `field` of `operation` under the proof `proofID` signed by the key
    /// `keyThumbprint`.
    /// - Throws: `Refusal`.
    public func open(_ text: String, field: String, operation: String, keyThumbprint: String, proofID: String,
                     now: Date) throws(Refusal) -> String {
        guard let sealed = SealedCredential(text) else { throw .malformed }
        guard let key = keys(at: now).first(where: { $0.id == sealed.keyID }) else { throw .unknownKey }
        do {
            var recipient = try HPKE.Recipient(privateKey: key.privateKey, ciphersuite: .P256_SHA256_AES_GCM_256,
                                               info: SealedCredential.info(field: field, operation: operation,
                                                                           keyThumbprint: keyThumbprint, proofID: proofID),
                                               encapsulatedKey: sealed.encapsulatedKey)
            let plain = try recipient.open(sealed.ciphertext)
            guard let value = String(data: plain, encoding: .utf8) else { throw Refusal.doesNotOpen }
            return value
        } catch {
            throw .doesNotOpen
        }
    }

    /// A fingerprint of the current key for the database (`ClusterSecrets`): replicas must agree.
    public var fingerprint: String { current.id }
}

extension SealKeyring {
    /// Reads the current key (PEM, PKCS#8 or SEC1) and the previous ones with their retirement.
    /// - Throws: `ConfigurationError` naming the setting of a file that is missing or not a P-256 key.
    public static func load(file: String, previous: [(file: String, until: Date)]) throws -> SealKeyring {
        func key(_ path: String, setting: String) throws -> P256.KeyAgreement.PrivateKey {
            guard let data = FileManager.default.contents(atPath: path), let pem = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(key: setting, message: "The HPKE key file \(path) cannot be read (latchkey secrets generate writes it).")
            }
            do { return try P256.KeyAgreement.PrivateKey(pemRepresentation: pem) } catch {
                throw ConfigurationError(key: setting, message: "The HPKE key file \(path) is not a P-256 private key in PEM.")
            }
        }
        return SealKeyring(current: try key(file, setting: "secrets.sealKeyFile"),
                           previous: try previous.map { (try key($0.file, setting: "secrets.previousSealKeys"), until: $0.until) })
    }

    /// A new P-256 private key in PEM (PKCS#8), for `latchkey secrets generate`.
    public static func newKeyPEM() -> String { P256.KeyAgreement.PrivateKey().pemRepresentation }
}

extension SealKeyring {
    /// The configured keys; on a single server (`generate`) a missing current key is created first.
    /// - Throws: `ConfigurationError` naming `secrets.sealKeyFile` or `secrets.previousSealKeys`.
    public static func load(settings: SecretSettings, generate: Bool, logger: Logger) throws -> SealKeyring {
        if !FileManager.default.fileExists(atPath: settings.sealKeyFile) {
            guard generate else { throw SecretFiles.missing(settings.sealKeyFile, key: "secrets.sealKeyFile") }
            if !(try SecretFiles.generateSealKey(settings)).isEmpty {
                logger.warning("Generated a new seal key for sealed credentials; keep it safe and outside the database.",
                               metadata: ["file": "\(settings.sealKeyFile)"])
            }
        }
        let previous = try settings.previousSealKeys.map { key in
            guard let until = ISO8601DateFormatter().date(from: key.until) else {
                throw ConfigurationError(key: "secrets.previousSealKeys",
                                         message: "until \"\(key.until)\" of \(key.file) is not an ISO 8601 instant (2026-12-08T00:00:00Z).")
            }
            return (file: key.file, until: until)
        }
        return try load(file: settings.sealKeyFile, previous: previous)
    }
}
