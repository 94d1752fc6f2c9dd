import Crypto
import Foundation
import LatchkeyCore
#if canImport(CryptoKit)
import CryptoKit
#endif

/// The device's P-256 key pair: in the Secure Enclave where there is one (iPhone, iPad, Macs with
/// a Secure Enclave), else a swift-crypto key. Its private part (or the enclave's handle to it) is
/// kept in the SDK's `CredentialStorage` and restored at the next launch; it never leaves the SDK.
/// The server knows the device by this key (DPoP, RFC 9449).
struct DeviceKey: Sendable {
    static let storageKey = "latchkey.deviceKey"
    static let certificateKey = "latchkey.deviceCertificate"

    /// The public key as DER SubjectPublicKeyInfo, base64 — what the certificate call takes.
    let publicKeyBase64: String
    /// The public point's coordinates, base64url (the proof's `jwk`).
    let x: String
    let y: String
    /// Signs with the private key; answers the raw `r || s` signature JOSE uses.
    let sign: @Sendable (Data) throws -> Data

    /// The RFC 7638 thumbprint: how the server names this device.
    var thumbprint: String {
        Data(SHA256.hash(data: Data(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8))).base64URL
    }

    /// The stored key, or a new one kept in `storage`. The new key is written add-only: if a key is
    /// there after all (a read that wrongly answered "none", another process of the app), that key
    /// is kept and used. A stored key that cannot be restored is an error, never silently replaced
    /// (the server would no longer know the device); `LatchkeyClient.resetDeviceKey()` replaces it.
    /// - Throws: `LatchkeyError` of kind `.storage`: id `.storage` when the storage fails, id
    ///   `.deviceKey` when the stored key cannot be restored.
    static func loadOrCreate(in storage: any CredentialStorage) async throws -> DeviceKey {
        let stored: Data
        do {
            if let existing = try await storage.data(for: storageKey) {
                stored = existing
            } else {
                let (key, created) = try create()
                stored = try await storage.add(created, for: storageKey)
                if stored == created { return key }
            }
        } catch {
            throw LatchkeyError.storage(error)
        }
        do { return try restore(stored) } catch { throw unusable(error) }
    }

    /// A new key stored over the one in `storage`, whose certificate is deleted first (it names
    /// the old key). Written with `set`, not add-only: a load of the old key that finishes
    /// meanwhile cannot keep its key in the storage.
    /// - Throws: `LatchkeyError` of kind `.storage` when the storage fails.
    static func replace(in storage: any CredentialStorage) async throws -> DeviceKey {
        do {
            try await storage.set(nil, for: certificateKey)
            let (key, created) = try create()
            try await storage.set(created, for: storageKey)
            return key
        } catch {
            throw LatchkeyError.storage(error)
        }
    }

    /// The error of a stored key that cannot be restored or no longer signs (a Secure Enclave key
    /// after the enclave was reset, e.g. by an erase and restore of the phone).
    static func unusable(_ error: any Error) -> LatchkeyError {
        let detail = "The device key stored on this device cannot be used (\(error)). Reset it with "
            + "LatchkeyClient.resetDeviceKey(); the device must then be linked to the wallet again (MFA)."
        return LatchkeyError(kind: .storage, code: .serverError, domain: .configuration, id: .deviceKey,
                             message: detail, detail: detail)
    }

    private static func create() throws -> (DeviceKey, Data) {
        #if canImport(CryptoKit)
        if SecureEnclave.isAvailable, let key = try? SecureEnclave.P256.Signing.PrivateKey() {
            return (enclave(key), Data("enclave:".utf8) + key.dataRepresentation)
        }
        #endif
        let key = Crypto.P256.Signing.PrivateKey()
        return (software(key), Data("software:".utf8) + key.rawRepresentation)
    }

    private static func restore(_ stored: Data) throws -> DeviceKey {
        let text = Data("software:".utf8)
        if stored.starts(with: text) {
            return software(try Crypto.P256.Signing.PrivateKey(rawRepresentation: stored.dropFirst(text.count)))
        }
        #if canImport(CryptoKit)
        let enclaveTag = Data("enclave:".utf8)
        if stored.starts(with: enclaveTag) {
            return enclave(try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: stored.dropFirst(enclaveTag.count)))
        }
        #endif
        throw CocoaError(.coderReadCorrupt)
    }

    private static func software(_ key: Crypto.P256.Signing.PrivateKey) -> DeviceKey {
        let point = key.publicKey.rawRepresentation
        return DeviceKey(publicKeyBase64: key.publicKey.derRepresentation.base64EncodedString(),
                         x: Data(point.prefix(32)).base64URL, y: Data(point.suffix(32)).base64URL,
                         sign: { try key.signature(for: $0).rawRepresentation })
    }

    #if canImport(CryptoKit)
    private static func enclave(_ key: SecureEnclave.P256.Signing.PrivateKey) -> DeviceKey {
        let point = key.publicKey.rawRepresentation
        return DeviceKey(publicKeyBase64: key.publicKey.derRepresentation.base64EncodedString(),
                         x: Data(point.prefix(32)).base64URL, y: Data(point.suffix(32)).base64URL,
                         sign: { try key.signature(for: $0).rawRepresentation })
    }
    #endif
}
