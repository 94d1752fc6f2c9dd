import LatchkeyCore
import Crypto
import Foundation
import X509

/// A client certificate issued for a device key.
public struct IssuedCertificate: Sendable, Equatable {
    public var certificatePEM: String
    public var caCertificatePEM: String
    public var serialNumber: String
    public var notBefore: Date
    public var notAfter: Date
}

extension SignupService {
    /// `PUT /identity/pki/client/certificates`: signs an X.509 client certificate for the device's
    /// P-256 public key (PEM, or base64 of its DER SubjectPublicKeyInfo or X9.63 point) and records
    /// it on the session's device. 401 without a live session; 400 for a key that is not P-256.
    public func issueCertificate(_ principal: Principal, deviceID: String?, publicKey: String) async throws -> IssuedCertificate {
        guard let device = principal.deviceID ?? deviceID, !device.isEmpty else {
            throw DomainError.invalidField("X-Device-ID", "The device the key belongs to is required.")
        }
        guard let key = Self.parsePublicKey(publicKey) else {
            throw DomainError.invalidField("publicKey", "Send a P-256 public key as PEM or base64 (DER SubjectPublicKeyInfo or X9.63).")
        }
        // A request that proves a device key (DPoP) is the proof of possession: the certificate is
        // issued only for that key.
        if let proven = DeviceBinding.provenKey, DPoPVerifier.thumbprint(of: key) != proven {
            throw DomainError.invalidField("publicKey", "The public key is not the key that signed the request's DPoP proof.")
        }
        let time = now()
        let certificate = try authority.issue(for: key, userID: principal.userID, deviceID: device, organization: issuer.name,
                                              now: time, lifetimeDays: issuer.deviceAuthentication.lifetimeDays)
        let pem = try certificate.serializeAsPEM().pemString
        let serial = certificate.serialNumber.bytes.map { String(format: "%02x", $0) }.joined()
        try await store.createDeviceCertificate(DeviceCertificateRecord(
            serial: serial, userID: principal.userID, deviceID: device, publicKey: Data(key.derRepresentation).base64EncodedString(),
            certificatePEM: pem, createdAt: time, expiresAt: certificate.notValidAfter))
        return IssuedCertificate(certificatePEM: pem, caCertificatePEM: try authority.certificate.serializeAsPEM().pemString,
                                 serialNumber: serial, notBefore: certificate.notValidBefore, notAfter: certificate.notValidAfter)
    }

    static func parsePublicKey(_ text: String) -> P256.Signing.PublicKey? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN") { return try? P256.Signing.PublicKey(pemRepresentation: trimmed) }
        guard trimmed.count <= 1024, let data = Data(base64Encoded: trimmed) else { return nil }
        return (try? P256.Signing.PublicKey(derRepresentation: data)) ?? (try? P256.Signing.PublicKey(x963Representation: data))
    }
}
