import Crypto
import Foundation
import LatchkeyCore

/// Encrypts, in the stored profile document, the values of the fields the issuer marks
/// `pciEncryptionRequired`: AES-256-GCM with a key derived from the pepper (HKDF-SHA256, its own
/// label), so a copy of the database alone does not show them. Values sealed under an earlier
/// pepper still open after a rotation.
public struct ProfileFieldCipher: Sendable {
    static let prefix = "enc1:"
    private let key: SymmetricKey
    private let previousKeys: [SymmetricKey]

    public init(pepper: SymmetricKey, previousPeppers: [SymmetricKey] = []) {
        key = Self.key(pepper)
        previousKeys = previousPeppers.map(Self.key)
    }

    private static func key(_ pepper: SymmetricKey) -> SymmetricKey {
        PepperPurpose.profileField.key(from: pepper)
    }

    /// `value` encrypted (`enc1:` and the base64 of nonce, ciphertext and tag).
    public func seal(_ value: String) throws -> String {
        guard let combined = try AES.GCM.seal(Data(value.utf8), using: key).combined else { throw CryptoKitError.incorrectParameterSize }
        return Self.prefix + combined.base64EncodedString()
    }

    /// The value of a stored `text`: opened when it was sealed, as it is otherwise (stored before
    /// the field was marked).
    /// - Throws: `StoreError.undecodableDocument` when it was sealed under a pepper this server
    ///   does not have.
    public func open(_ text: String) throws -> String {
        guard text.hasPrefix(Self.prefix) else { return text }
        guard let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
              let box = try? AES.GCM.SealedBox(combined: data) else {
            throw StoreError.undecodableDocument("users.profile_json")
        }
        for candidate in [key] + previousKeys {
            if let plain = try? AES.GCM.open(box, using: candidate) { return String(decoding: plain, as: UTF8.self) }
        }
        throw StoreError.undecodableDocument("users.profile_json")
    }
}

extension EnrollmentService.StoredProfile {
    /// The document as stored: the values of the fields `metadata` marks `pciEncryptionRequired`
    /// encrypted with `cipher`.
    package func encoded(sealing metadata: ProfileMetadata, with cipher: ProfileFieldCipher) throws -> String {
        var document = self
        // A plain value that looks encrypted is encrypted too, so every stored `enc1:` opens.
        let additional = Set(metadata.additionalCustomerInformation.filter { $0.pciEncryptionRequired == true }.map(\.key))
        for (key, value) in document.additionalCustomerInformation ?? [:]
        where additional.contains(key) || value.hasPrefix(ProfileFieldCipher.prefix) {
            document.additionalCustomerInformation?[key] = try cipher.seal(value)
        }
        let address = Set(metadata.addressInformation.filter { $0.pciEncryptionRequired == true }
            .compactMap { ProfileMetadata.addressProperties[$0.key] })
        for name in ProfileMetadata.addressProperties.values {
            guard let value = document.addressInformation?[name], address.contains(name) || value.hasPrefix(ProfileFieldCipher.prefix) else {
                continue
            }
            document.addressInformation?[name] = try cipher.seal(value)
        }
        return String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
    }

    /// The document of a stored user with every encrypted value opened (whatever the metadata
    /// says now: a field marked earlier still reads). A value that no longer opens (its pepper was
    /// dropped) is left out, so the profile still reads and an update can set it again.
    /// - Throws: `StoreError.undecodableDocument` for a document that does not decode.
    package init(of user: UserRecord, opening cipher: ProfileFieldCipher) throws {
        self = try Self(of: user)
        if let info = additionalCustomerInformation { additionalCustomerInformation = info.compactMapValues { try? cipher.open($0) } }
        if var address = addressInformation {
            for name in ProfileMetadata.addressProperties.values {
                if let value = address[name] { address[name] = try? cipher.open(value) }
            }
            addressInformation = address
        }
    }
}
