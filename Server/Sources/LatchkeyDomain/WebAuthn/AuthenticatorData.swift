import Foundation

/// Authenticator data (WebAuthn Level 3 §6.1): what the authenticator signs about itself in every
/// ceremony. Layout: rpIdHash (32 bytes), flags (1), signCount (4, big-endian), then, when AT is set,
/// the attested credential data, then, when ED is set, a CBOR map of extension outputs; nothing after.
///
/// Parsing needs only Foundation (the fuzz target compiles it on its own); the credential public key is
/// kept as its COSE bytes and checked by `COSEKey`.
public struct AuthenticatorData: Sendable, Equatable {
    /// The flags byte.
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// User present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// User verified (biometrics, PIN, passcode).
        public static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible: the credential may be synced (a multi-device passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up: the credential is synced now.
        public static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// Extension outputs follow.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The longest credential id accepted (WebAuthn Level 3 §5.8.3, credential id at most 1023 bytes).
    public static let maximumCredentialIDLength = 1023

    /// SHA-256 of the relying party id the credential is scoped to.
    public var rpIDHash: Data
    public var flags: Flags
    /// The signature counter (0 when the authenticator does not count).
    public var signCount: UInt32
    /// The new credential, in a registration.
    public var attestedCredential: AttestedCredentialData?
    /// The extension outputs, when ED is set: a CBOR map.
    public var extensions: CBOR?
    /// The bytes as received: signatures are over them.
    public var bytes: Data

    /// Parses `data`.
    /// - Throws: `WebAuthnError.malformed` when it is short, its credential or extensions do not parse, or
    ///   bytes are left over; `WebAuthnError.invalidFlags` when BS is set without BE.
    public init(_ data: Data) throws(WebAuthnError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 37 else { throw .malformed("authenticator data is shorter than 37 bytes") }
        rpIDHash = Data(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        self.bytes = data
        if flags.contains(.backedUp), !flags.contains(.backupEligible) {
            throw .invalidFlags("backed up (BS) without backup eligible (BE)")
        }
        var position = 37
        if flags.contains(.attestedCredentialData) {
            let (credential, length) = try AttestedCredentialData.parse(bytes[position...])
            attestedCredential = credential
            position += length
        }
        if flags.contains(.extensionData) {
            let (value, length) = try AuthenticatorData.cbor(bytes[position...], what: "extensions")
            guard case .map = value else { throw .malformed("authenticator data extensions are not a map") }
            extensions = value
            position += length
        }
        guard position == bytes.count else { throw .malformed("bytes follow the authenticator data") }
    }

    /// The CBOR item at the start of `bytes`, which the authenticator encoded (so canonically).
    static func cbor(_ bytes: ArraySlice<UInt8>, what: String) throws(WebAuthnError) -> (CBOR, Int) {
        do {
            return try CBORDecoder.decodePrefix(Data(bytes), canonicalMapOrder: true)
        } catch {
            throw .malformed("authenticator data \(what): \(error)")
        }
    }
}

/// The attested credential data of a registration's authenticator data (WebAuthn Level 3 §6.5.2):
/// AAGUID (16 bytes), credential id length (2, big-endian), credential id, COSE public key.
public struct AttestedCredentialData: Sendable, Equatable {
    /// The authenticator model's id (all zero when the authenticator does not say).
    public var aaguid: UUID
    public var credentialID: Data
    /// The credential public key as its COSE_Key bytes, as stored.
    public var publicKey: Data
    /// The same key decoded.
    public var publicKeyCBOR: CBOR

    /// The credential data at the start of `bytes` and its length.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) -> (AttestedCredentialData, Int) {
        guard bytes.count >= 18 else { throw .malformed("attested credential data is shorter than 18 bytes") }
        let start = bytes.startIndex
        let aaguid = Array(bytes[start..<start + 16])
        let idLength = Int(bytes[start + 16]) << 8 | Int(bytes[start + 17])
        guard idLength > 0, idLength <= AuthenticatorData.maximumCredentialIDLength else {
            throw .malformed("credential id length \(idLength) is not within 1…\(AuthenticatorData.maximumCredentialIDLength)")
        }
        guard bytes.count - 18 >= idLength else { throw .malformed("attested credential data ends inside the credential id") }
        let credentialID = Data(bytes[start + 18..<start + 18 + idLength])
        let keyStart = start + 18 + idLength
        let (key, keyLength) = try AuthenticatorData.cbor(bytes[keyStart...], what: "credential public key")
        guard case .map = key else { throw .malformed("the credential public key is not a map") }
        let uuid = UUID(uuid: (aaguid[0], aaguid[1], aaguid[2], aaguid[3], aaguid[4], aaguid[5], aaguid[6], aaguid[7],
                               aaguid[8], aaguid[9], aaguid[10], aaguid[11], aaguid[12], aaguid[13], aaguid[14], aaguid[15]))
        let credential = AttestedCredentialData(aaguid: uuid, credentialID: credentialID,
                                                publicKey: Data(bytes[keyStart..<keyStart + keyLength]), publicKeyCBOR: key)
        return (credential, 18 + idLength + keyLength)
    }
}
