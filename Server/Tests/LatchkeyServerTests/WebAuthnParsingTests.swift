import Crypto
import Foundation
import LatchkeyCore
import LatchkeyDomain
import Testing

/// The WebAuthn structures on their own (COSE keys, authenticator data, attestation objects,
/// clientDataJSON), and the verifier against responses recorded from real authenticators.
@Suite struct WebAuthnParsingTests {
    /// `Server/Tests/Fixtures/webauthn/real-authenticators.json`.
    struct RealVectors: Decodable {
        struct Registration: Decodable {
            var expect: String, challenge: String, credentialId: String, attestationObject: String, clientDataJSON: String
            var publicKey: String?, signCount: UInt32?
        }
        struct Assertion: Decodable {
            var expect: String, challenge: String, authenticatorData: String, clientDataJSON: String, signature: String
            var publicKey: String, storedSignCount: UInt32
        }
        var registrations: [String: Registration]
        var assertions: [String: Assertion]
    }

    static let real = WebAuthnVerifierTests.fixture("real-authenticators.json", as: RealVectors.self)
    static let localhost = WebAuthnRelyingParty(id: "localhost", name: "localhost", origins: ["http://localhost:5000"])
    static func data(_ base64URL: String) -> Data { WebAuthnVerifierTests.data(base64URL) }
    static func bytes(_ hex: String) -> Data { CBORDecoderTests.bytes(hex) }

    // MARK: Real authenticators

    @Test func acceptsARealNoneRegistration() throws {
        let vector = try #require(Self.real.registrations["none-security-key"])
        let response = WebAuthnRegistration(credentialID: Self.data(vector.credentialId), clientDataJSON: Self.data(vector.clientDataJSON),
                                            attestationObject: Self.data(vector.attestationObject))
        let credential = try WebAuthnVerifier.verifyRegistration(response, challenge: Self.data(vector.challenge), relyingParty: Self.localhost)
        let publicKey = try #require(vector.publicKey)
        #expect(credential.publicKey == Self.data(publicKey))
        #expect(credential.signCount == vector.signCount)
        #expect(credential.aaguid == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        #expect(!credential.backupEligible)
    }

    @Test func refusesARealPackedAttestationWithACertificateChain() throws {
        let vector = try #require(Self.real.registrations["packed-x5c-yubikey"])
        let response = WebAuthnRegistration(credentialID: Self.data(vector.credentialId), clientDataJSON: Self.data(vector.clientDataJSON),
                                            attestationObject: Self.data(vector.attestationObject))
        #expect(throws: WebAuthnError.unsupportedAttestation("packed with a certificate chain (x5c)")) {
            try WebAuthnVerifier.verifyRegistration(response, challenge: Self.data(vector.challenge), relyingParty: Self.localhost)
        }
    }

    @Test(arguments: ["es256-user-verified", "es256-user-not-verified", "eddsa-user-not-verified", "rs256-user-verified"])
    func checksRealAssertions(name: String) throws {
        let vector = try #require(Self.real.assertions[name])
        let response = WebAuthnAssertion(credentialID: Data([1]), clientDataJSON: Self.data(vector.clientDataJSON),
                                         authenticatorData: Self.data(vector.authenticatorData), signature: Self.data(vector.signature),
                                         userHandle: nil)
        let verify = {
            try WebAuthnVerifier.verifyAssertion(response, challenge: Self.data(vector.challenge), relyingParty: Self.localhost,
                                                 publicKey: Self.data(vector.publicKey), storedSignCount: vector.storedSignCount,
                                                 backupEligible: false)
        }
        switch vector.expect {
        case "accepted": #expect(try verify().signCount == 1_625_263_266)
        case "userNotVerified": #expect(throws: WebAuthnError.userNotVerified) { try verify() }
        default: #expect(throws: WebAuthnError.unsupportedAlgorithm(-257)) { try verify() }
        }
    }

    /// A real Ed25519 key and its signature (the response lacks UV, so only the key is checked here).
    @Test func verifiesARealEd25519Signature() throws {
        let vector = try #require(Self.real.assertions["eddsa-user-not-verified"])
        let key = try COSEKey(bytes: Self.data(vector.publicKey))
        #expect(key.algorithm == COSEKey.edDSA)
        var message = Self.data(vector.authenticatorData) + Data(SHA256.hash(data: Self.data(vector.clientDataJSON)))
        #expect(key.isValidSignature(Self.data(vector.signature), for: message))
        message[0] ^= 1
        #expect(!key.isValidSignature(Self.data(vector.signature), for: message))
    }

    // MARK: COSE keys

    static let es256Key = data("pQECAyYgASFYIFm1Py-FzzFOuwXbRbTr95SiDxuB1BkZsEEJxFhquzqkIlggL1U1T713Jo_2muzhXvpbwRNdoAs8CYK6PflvY1MBdCI")

    @Test func refusesCOSEKeysOutsideTheTwoAlgorithms() throws {
        #expect(try COSEKey(bytes: Self.es256Key).algorithm == COSEKey.es256)
        var offCurve = Self.es256Key
        offCurve[15] ^= 0x01
        #expect(throws: WebAuthnError.invalidPublicKey) { try COSEKey(bytes: offCurve) }
        var p384 = Self.es256Key
        p384[6] = 0x02
        #expect(throws: WebAuthnError.invalidPublicKey) { try COSEKey(bytes: p384) }
        var withPrivateKey = Self.es256Key
        withPrivateKey[0] = 0xA6
        withPrivateKey += Self.bytes("235820") + Data(repeating: 1, count: 32)
        #expect(throws: WebAuthnError.invalidPublicKey) { try COSEKey(bytes: withPrivateKey) }
        let rsa = try #require(Self.real.assertions["rs256-user-verified"]).publicKey
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-257)) { try COSEKey(bytes: Self.data(rsa)) }
        // EC2 P-256 labelled EdDSA, and an OKP key labelled ES256.
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-8)) { try COSEKey(bytes: Self.bytes("a3010203272001")) }
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-7)) { try COSEKey(bytes: Self.bytes("a3010103262006")) }
        // Labels out of canonical order (alg before kty): an authenticator never encodes a key so.
        #expect(throws: WebAuthnError.self) { try COSEKey(bytes: Self.bytes("a203260102")) }
        #expect(throws: WebAuthnError.malformed("credential public key lacks an integer kty or alg")) {
            try COSEKey(bytes: Self.bytes("a10102"))
        }
    }

    // MARK: Authenticator data

    /// Authenticator data for rpIdHash 0…, `flags`, counter 5, then `rest`.
    static func authenticatorData(flags: UInt8, _ rest: Data = Data()) -> Data {
        Data(count: 32) + [flags, 0, 0, 0, 5] + rest
    }

    @Test func parsesAuthenticatorData() throws {
        let registered = try AttestationObject(WebAuthnVerifierTests.registration("es256-none-synced").response.attestationObject)
        let data = registered.authenticatorData
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible, .backedUp, .attestedCredentialData])
        #expect(data.attestedCredential?.credentialID.count == 32)
        // The same data with an extension map after the key (ED).
        var bytes = data.bytes
        bytes[32] |= AuthenticatorData.Flags.extensionData.rawValue
        let withExtensions = try AuthenticatorData(bytes + Self.bytes("a16b6372656450726f7465637402"))
        #expect(withExtensions.extensions?["credProtect"]?.int == 2)
        #expect(withExtensions.attestedCredential == data.attestedCredential)
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes + Self.bytes("02")) }
        #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes) }
        #expect(try AuthenticatorData(Self.authenticatorData(flags: 0x05)).signCount == 5)
    }

    @Test(arguments: [
        (Data(count: 36), "authenticator data is shorter than 37 bytes"),
        (authenticatorData(flags: 0x05, Data([0])), "bytes follow the authenticator data"),
        (authenticatorData(flags: 0x45, Data(count: 17)), "attested credential data is shorter than 18 bytes"),
        (authenticatorData(flags: 0x45, Data(count: 16) + [0, 0] + bytes("a0")), "credential id length 0 is not within 1…1023"),
        (authenticatorData(flags: 0x45, Data(count: 16) + [4, 0] + Data(count: 1024)), "credential id length 1024 is not within 1…1023"),
        (authenticatorData(flags: 0x45, Data(count: 16) + [0, 4, 1, 2]), "attested credential data ends inside the credential id"),
        (authenticatorData(flags: 0x45, Data(count: 16) + [0, 1, 9] + bytes("01")), "the credential public key is not a map"),
    ])
    func refusesMalformedAuthenticatorData(data: Data, reason: String) {
        #expect(throws: WebAuthnError.malformed(reason)) { try AuthenticatorData(data) }
    }

    @Test func refusesBackedUpWithoutBackupEligible() {
        #expect(throws: WebAuthnError.invalidFlags("backed up (BS) without backup eligible (BE)")) {
            try AuthenticatorData(Self.authenticatorData(flags: 0x15))
        }
    }

    // MARK: Attestation objects and clientDataJSON

    @Test func refusesOtherAttestationFormatsAndMalformedObjects() {
        // {"fmt": "tpm", "attStmt": {}, "authData": h''}
        #expect(throws: WebAuthnError.unsupportedAttestation("tpm")) {
            try AttestationObject(Self.bytes("a363666d746374706d6761747453746d74a068617574684461746140"))
        }
        // {"fmt": "none", "attStmt": {"x": 1}, "authData": h''}
        #expect(throws: WebAuthnError.malformed("attestation none has a non-empty attStmt")) {
            try AttestationObject(Self.bytes("a363666d74646e6f6e656761747453746d74a161780168617574684461746140"))
        }
        #expect(throws: WebAuthnError.malformed("attestation object has no authData bytes")) {
            try AttestationObject(Self.bytes("a263666d74646e6f6e656761747453746d74a0"))
        }
        #expect(throws: WebAuthnError.malformed("attestation object is not a map")) { try AttestationObject(Self.bytes("80")) }
        #expect(throws: WebAuthnError.malformed("attestation object: CBOR indefinite lengths are not accepted")) {
            try AttestationObject(Self.bytes("bf63666d74646e6f6e65ff"))
        }
    }

    @Test(arguments: [
        (#"not json"#, WebAuthnError.malformed("clientDataJSON is not an object with string type, challenge and origin and a boolean crossOrigin")),
        (#"{"type":"webauthn.get","challenge":"AAAA","origin":"https://wallet.example.com","crossOrigin":1}"#,
         .malformed("clientDataJSON is not an object with string type, challenge and origin and a boolean crossOrigin")),
        (#"{"type":1,"challenge":"AAAA","origin":"https://wallet.example.com"}"#,
         .malformed("clientDataJSON is not an object with string type, challenge and origin and a boolean crossOrigin")),
        (#"{"type":"webauthn.get","challenge":"AAA=","origin":"https://wallet.example.com"}"#, .malformed("clientDataJSON challenge is not base64url")),
        (#"{"type":"webauthn.get","challenge":"AAAA","origin":"https://wallet.example.com","crossOrigin":true}"#, .crossOrigin),
        (#"{"type":"webauthn.get","challenge":"AAAA","origin":"https://wallet.example.com","topOrigin":"https://a.example"}"#, .crossOrigin),
        ("{\"type\":\"webauthn.get\",\"challenge\":\"AAAA\",\"origin\":\"\(String(repeating: "x", count: 16_400))\"}",
         .malformed("clientDataJSON is too long")),
    ])
    func refusesMalformedClientData(json: String, error: WebAuthnError) {
        #expect(throws: error) {
            try WebAuthnVerifierTests.verify("es256-synced") { $0.clientDataJSON = Data(json.utf8) }
        }
    }
}
