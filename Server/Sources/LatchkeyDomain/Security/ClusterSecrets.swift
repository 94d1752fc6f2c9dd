import Crypto
import Foundation
import LatchkeyCore
import Logging
import SwiftASN1
import X509

/// The secrets every replica of one database must share: the pepper (in every credential hash and
/// the outbox cipher) and the device-certificate CA. They live outside the database; the database
/// keeps only their fingerprints, recorded by the first server, so a replica started with other
/// secrets refuses to start instead of failing every login and losing outbox messages.
public enum ClusterSecrets {
    /// A fingerprint of the pepper that does not reveal it: HMAC-SHA256 of a fixed label.
    public static func fingerprint(pepper: SymmetricKey) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("latchkey pepper fingerprint".utf8), using: pepper)
            .prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of the CA certificate's DER encoding.
    public static func fingerprint(certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02x", $0) }.joined()
    }

    /// Records this server's fingerprints if the database has none yet, and refuses (with a
    /// message naming the secret) when it has others.
    /// Throws `ConfigurationError` (key `secrets`) on a mismatch.
    /// A server given the recorded pepper among its previous ones rotates the record to its
    /// current pepper (a rotation: servers still on the old pepper then refuse to start).
    public static func check(store: any SecretFingerprintStore, pepper: SymmetricKey, previousPeppers: [SymmetricKey] = [],
                             authority: CertificateAuthority, sealKeys: SealKeyring? = nil, now: Date, logger: Logger) async throws {
        var mine = ["pepper": fingerprint(pepper: pepper), "ca-certificate": try fingerprint(certificate: authority.certificate)]
        if let sealKeys { mine["seal-key"] = sealKeys.fingerprint }
        try await check(store: store, mine, previousPeppers: previousPeppers, sealKeys: sealKeys, now: now, logger: logger)
    }

    /// The pepper alone, for a tool that hashes but issues no certificates (`latchkey users import`).
    /// Throws `ConfigurationError` (key `secrets`) on a mismatch.
    public static func check(store: any SecretFingerprintStore, pepper: SymmetricKey, previousPeppers: [SymmetricKey] = [],
                             now: Date, logger: Logger) async throws {
        try await check(store: store, ["pepper": fingerprint(pepper: pepper)], previousPeppers: previousPeppers, now: now,
                        logger: logger)
    }

    private static func check(store: any SecretFingerprintStore, _ mine: [String: String], previousPeppers: [SymmetricKey],
                              sealKeys: SealKeyring? = nil, now: Date, logger: Logger) async throws {
        var recorded = try await store.recordSecretFingerprints(mine, now: now)
        // A seal key rotation: the recorded key is among this server's previous ones.
        if let sealKeys, let old = recorded["seal-key"], old != sealKeys.fingerprint, sealKeys.previous.contains(where: { $0.id == old }),
           try await store.rotateSecretFingerprint(name: "seal-key", from: old, to: sealKeys.fingerprint, now: now) {
            logger.warning("The seal key was rotated: seals to the previous one open until its configured time.")
            recorded["seal-key"] = sealKeys.fingerprint
        }
        if let old = recorded["pepper"], old != mine["pepper"], previousPeppers.map(fingerprint(pepper:)).contains(old),
           try await store.rotateSecretFingerprint(name: "pepper", from: old, to: mine["pepper"]!, now: now) {
            logger.warning("The pepper was rotated: hashes made with the previous one are made again at their next check.")
            recorded["pepper"] = mine["pepper"]
        }
        for (name, value) in mine.sorted(by: { $0.key < $1.key }) where recorded[name] != value {
            let setting = switch name {
            case "pepper": "LATCHKEY_PEPPER or secrets.pepperFile"
            case "seal-key": "secrets.sealKeyFile"
            default: "secrets.caKeyFile and secrets.caCertificateFile"
            }
            throw ConfigurationError(key: "secrets", message: """
                This server's \(name) (fingerprint \(value.prefix(12))) is not the one this database was first used with \
                (\(recorded[name]?.prefix(12) ?? "none")). Every server of one database needs the same secrets: copy them \
                from the first server (\(setting)).
                """)
        }
    }
}

/// Creates the secrets once (`latchkey secrets generate`, or the first start on SQLite).
public enum SecretFiles {
    /// Writes whichever of the pepper and the CA pair is missing, each file 0600 and published
    /// atomically; answers the paths it wrote. A pair another process is writing is waited for.
    /// Throws `ConfigurationError` naming the setting when a file cannot be written.
    @discardableResult
    public static func generate(settings: SecretSettings, issuerName: String) throws -> [String] {
        try generatePepper(settings) + generateAuthority(settings, issuerName: issuerName) + generateSealKey(settings)
    }

    /// Writes the HPKE seal key unless it exists; answers the paths written.
    package static func generateSealKey(_ settings: SecretSettings) throws -> [String] {
        guard !FileManager.default.fileExists(atPath: settings.sealKeyFile) else { return [] }
        return try publish(settings.sealKeyFile, Data(SealKeyring.newKeyPEM().utf8), key: "secrets.sealKeyFile")
            ? [settings.sealKeyFile] : []
    }

    /// Writes the pepper file unless it exists; answers the paths written.
    package static func generatePepper(_ settings: SecretSettings) throws -> [String] {
        guard !FileManager.default.fileExists(atPath: settings.pepperFile) else { return [] }
        let secret = Data(SecureRandom.bytes(32)).base64EncodedString()
        return try publish(settings.pepperFile, Data(secret.utf8), key: "secrets.pepperFile") ? [settings.pepperFile] : []
    }

    /// Writes the CA key and certificate unless the key exists; answers the paths written.
    package static func generateAuthority(_ settings: SecretSettings, issuerName: String) throws -> [String] {
        var written: [String] = []
        if !FileManager.default.fileExists(atPath: settings.caKeyFile) {
            let authority = try CertificateAuthority.generate(issuerName: issuerName)
            // The certificate first: whoever sees the key finds its certificate beside it.
            if try publish(settings.caCertificateFile, Data(try authority.certificate.serializeAsPEM().pemString.utf8),
                           key: "secrets.caCertificateFile") {
                guard try publish(settings.caKeyFile, Data(authority.key.pemRepresentation.utf8), key: "secrets.caKeyFile") else {
                    throw ConfigurationError(key: "secrets.caKeyFile",
                                             message: "\(settings.caKeyFile) appeared without its certificate; remove both and start again.")
                }
                written += [settings.caCertificateFile, settings.caKeyFile]
            } else {
                try waitFor(settings.caKeyFile)
            }
        }
        return written
    }

    /// The refusal to start without a secret that must be provided.
    package static func missing(_ path: String, key: String) -> ConfigurationError {
        ConfigurationError(key: key, message: """
            \(path) is missing. With PostgreSQL, which several servers share, secrets are never generated on start: \
            run `latchkey secrets generate` once (same --config) and give every server the same files \
            (or LATCHKEY_PEPPER for the pepper).
            """)
    }

    private static func publish(_ path: String, _ contents: Data, key: String) throws -> Bool {
        do {
            return try PrivateFile.publish(path, contents: contents)
        } catch {
            throw ConfigurationError(key: key, message: "Cannot create \(path): \(error)")
        }
    }

    /// Another process published the certificate and is about to publish the key.
    private static func waitFor(_ path: String) throws {
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: path) { usleep(50_000) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigurationError(key: "secrets.caKeyFile", message: "\(path) is missing beside its certificate.")
        }
    }
}
