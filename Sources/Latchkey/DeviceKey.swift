import Crypto
import Foundation
#if canImport(CryptoKit)
import CryptoKit
#endif

/// The device's P-256 key pair: in the Secure Enclave where there is one, else a swift-crypto key.
/// Its private part (or the enclave's handle to it) is kept in the SDK's `CredentialStorage`.
struct DeviceKey: Sendable {
    static let storageKey = "latchkey.deviceKey"
    static let certificateKey = "latchkey.deviceCertificate"

    /// The public key as DER SubjectPublicKeyInfo, base64 — what the server takes.
    let publicKeyBase64: String

    /// Makes a new key pair and keeps it in `storage`.
    static func create(in storage: any CredentialStorage) async throws -> DeviceKey {
        #if canImport(CryptoKit) && !os(macOS)
        if SecureEnclave.isAvailable {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            try await storage.set(Data("enclave:".utf8) + key.dataRepresentation, for: storageKey)
            return DeviceKey(publicKeyBase64: key.publicKey.derRepresentation.base64EncodedString())
        }
        #endif
        let key = Crypto.P256.Signing.PrivateKey()
        try await storage.set(Data("software:".utf8) + key.rawRepresentation, for: storageKey)
        return DeviceKey(publicKeyBase64: key.publicKey.derRepresentation.base64EncodedString())
    }
}
