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

/// A certificate's revocation status, for relying parties (`GET /identity/pki/client/certificates/{serial}`).
extension DeviceCertificateRecord {
    /// The certificate's state at `now`: revoked wins over expired.
    public func state(at now: Date) -> CertificateStatus.State {
        revokedAt != nil ? .revoked : expiresAt <= now ? .expired : .good
    }
}

public struct CertificateStatus: Sendable, Equatable {
    public enum State: String, Sendable { case good, revoked, expired }
    public var serialNumber: String
    public var state: State
    public var revokedAt: Date?
    public var notAfter: Date
}

extension SignupService {
    /// `PUT /identity/pki/client/certificates`: registers the device key that signed the request's
    /// DPoP proof (the proof of possession) and signs an X.509 client certificate for it. The key
    /// becomes a device of the session's wallet, earlier certificates of that device are revoked,
    /// and the session is bound to the key (a phone sign-up's session loses its limits).
    ///
    /// - Throws: `invalidDPoPProof` (401) without a proof; `invalidField("publicKey")` (400) for a key
    ///   that is not P-256 or not the proof's; `deviceKeyInUse` (409) when another wallet has the
    ///   key; `deviceDeactivated` / `deviceSuspended` when the wallet has locked that device.
    public func issueCertificate(_ principal: Principal, publicKey: String, caller: Caller) async throws -> IssuedCertificate {
        let store = self.store.recording(into: caller.audit)
        let (label, deviceType) = (caller.client.deviceLabel, caller.client.deviceType)
        guard let proven = caller.provenKey else {
            throw DomainError(.invalidDPoPProof, message: "Registering a device key needs a DPoP proof signed by that key.",
                              field: "DPoP")
        }
        guard let key = Self.parsePublicKey(publicKey) else {
            throw DomainError.invalidField("publicKey", "Send a P-256 public key as PEM or base64 (DER SubjectPublicKeyInfo or X9.63).")
        }
        guard DPoPVerifier.thumbprint(of: key) == proven else {
            throw DomainError.invalidField("publicKey", "The public key is not the key that signed the request's DPoP proof.")
        }
        let device = DeviceKeyID.prefix + proven
        switch try await store.device(userID: principal.userID, deviceID: device)?.status {
        case .deactivated?: throw DomainError(.deviceDeactivated)
        case .suspended?: throw DomainError(.deviceSuspended)
        case .active?, nil: break
        }
        let time = now()
        let certificate = try authority.issue(for: key, customerURI: EnrollmentService.customerURI(principal.userID),
                                              keyThumbprint: proven, organization: issuer.name,
                                              now: time, lifetimeDays: issuer.deviceAuthentication.lifetimeDays)
        let pem = try certificate.serializeAsPEM().pemString
        let serial = certificate.serialNumber.bytes.map { String(format: "%02x", $0) }.joined()
        do {
            audit(.deviceLinked, user: principal.userID, deviceID: device, details: label.map { ["label": $0] } ?? [:], for: caller)
            audit(.certificateIssued, user: principal.userID, deviceID: device, details: ["serial": serial], for: caller)
            try await store.registerDeviceKey(DeviceCertificateRecord(
                serial: serial, userID: principal.userID, deviceID: device, publicKey: Data(key.derRepresentation).base64EncodedString(),
                certificatePEM: pem, createdAt: time, expiresAt: certificate.notValidAfter),
                label: label, deviceType: deviceType, sessionDigest: principal.session.digest, keyThumbprint: proven)
        } catch StoreError.deviceKeyInUse {
            throw DomainError(.deviceKeyInUse, field: "DPoP")
        }
        return IssuedCertificate(certificatePEM: pem, caCertificatePEM: try authority.certificate.serializeAsPEM().pemString,
                                 serialNumber: serial, notBefore: certificate.notValidBefore, notAfter: certificate.notValidAfter)
    }

    /// The revocation status of a certificate this server issued, for relying parties.
    ///
    /// - Throws: `invalidField("serialNumber")` (400) for a serial that is not hex; `notFound` (404)
    ///   for a serial this server never issued.
    public func certificateStatus(serial: String) async throws -> CertificateStatus {
        let normalized = serial.lowercased()
        guard (1...64).contains(normalized.count), normalized.allSatisfy(\.isHexDigit) else {
            throw DomainError.invalidField("serialNumber", "A serial number is 1 to 64 hexadecimal digits.")
        }
        guard let record = try await store.deviceCertificate(serial: normalized) else {
            throw DomainError(.notFound, message: "No certificate with this serial number was issued here.")
        }
        return CertificateStatus(serialNumber: record.serial, state: record.state(at: now()), revokedAt: record.revokedAt, notAfter: record.expiresAt)
    }

    package static func parsePublicKey(_ text: String) -> P256.Signing.PublicKey? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN") { return try? P256.Signing.PublicKey(pemRepresentation: trimmed) }
        guard trimmed.count <= 1024, let data = Data(base64Encoded: trimmed) else { return nil }
        return (try? P256.Signing.PublicKey(derRepresentation: data)) ?? (try? P256.Signing.PublicKey(x963Representation: data))
    }
}
