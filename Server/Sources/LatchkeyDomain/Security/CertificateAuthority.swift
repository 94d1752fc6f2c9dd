import Crypto
import Foundation
import LatchkeyCore
import Logging
import SwiftASN1
import X509

/// The server's own certificate authority for device keys: a P-256 key and a self-signed CA
/// certificate, created on first start and kept in files next to the pepper (never in the
/// database). It signs short X.509 client certificates for the public keys devices upload.
public struct CertificateAuthority: Sendable {
    package let key: P256.Signing.PrivateKey
    /// The CA certificate that device certificates chain to.
    public let certificate: Certificate

    package init(key: P256.Signing.PrivateKey, certificate: Certificate) {
        self.key = key
        self.certificate = certificate
    }

    /// A new CA for `issuerName`, valid ten years.
    public static func generate(issuerName: String, now: Date = Date()) throws -> CertificateAuthority {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName(issuerName)
            CommonName("\(issuerName) Device CA")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(key.publicKey))
            },
            issuerPrivateKey: .init(key))
        return CertificateAuthority(key: key, certificate: certificate)
    }

    /// Loads the CA from its files, creating both (with a warning) when the key file is missing.
    /// Loads the CA key and certificate; when the key is missing and `generate` allows (a single
    /// server on SQLite) the pair is created first (atomically: `SecretFiles`), otherwise the
    /// server refuses. Throws `ConfigurationError` naming the setting.
    public static func load(settings: SecretSettings, issuerName: String, generate: Bool = true,
                            logger: Logger) throws -> CertificateAuthority {
        let manager = FileManager.default
        if let keyData = manager.contents(atPath: settings.caKeyFile) {
            guard let certificateData = manager.contents(atPath: settings.caCertificateFile) else {
                throw ConfigurationError(key: "secrets.caCertificateFile", message: "\(settings.caCertificateFile) is missing.")
            }
            do {
                let key = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: keyData, as: UTF8.self))
                let certificate = try Certificate(pemEncoded: String(decoding: certificateData, as: UTF8.self))
                guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
                    throw ConfigurationError(key: "secrets.caCertificateFile", message: "The certificate is not the key's.")
                }
                return CertificateAuthority(key: key, certificate: certificate)
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError(key: "secrets.caKeyFile", message: "Cannot read the CA key or certificate: \(error)")
            }
        }
        guard generate else { throw SecretFiles.missing(settings.caKeyFile, key: "secrets.caKeyFile") }
        if !(try SecretFiles.generateAuthority(settings, issuerName: issuerName)).isEmpty {
            logger.warning("Generated a new device-certificate CA; keep its key safe and outside the database.",
                           metadata: ["file": "\(settings.caKeyFile)"])
        }
        return try load(settings: settings, issuerName: issuerName, generate: false, logger: logger)
    }

    /// A client certificate for a device's public key: the subject names the wallet by its customer
    /// URI; the subject alternative names carry the customer URI and the key's RFC 7638 thumbprint
    /// as an RFC 9278 URI (never a client-supplied value); client authentication only.
    public func issue(for publicKey: P256.Signing.PublicKey, customerURI: String, keyThumbprint: String, organization: String,
                      now: Date, lifetimeDays: Int) throws -> Certificate {
        let subject = try DistinguishedName {
            OrganizationName(organization)
            CommonName(customerURI)
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(TimeInterval(lifetimeDays) * 86_400),
            issuer: certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
                SubjectAlternativeNames([.uniformResourceIdentifier(customerURI),
                                         .uniformResourceIdentifier(Self.thumbprintURI(keyThumbprint))])
                AuthorityKeyIdentifier(keyIdentifier: try certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
            },
            issuerPrivateKey: .init(key))
    }

    /// RFC 9278's URI for a key's SHA-256 JWK thumbprint.
    public static func thumbprintURI(_ thumbprint: String) -> String {
        "urn:ietf:params:oauth:jwk-thumbprint:sha-256:" + thumbprint
    }
}
