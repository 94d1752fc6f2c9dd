import Foundation
import LatchkeyCore
import LatchkeyDomain
import Testing

/// The two WebAuthn ceremonies' checks against vectors made by a software authenticator and accepted
/// by an independent relying party (python-fido2; `Server/Fuzz/make-vectors.py`), and each attack the
/// checks stop, performed with a validly signed response so that only the one rule can refuse it.
@Suite struct WebAuthnVerifierTests {
    /// `Server/Tests/Fixtures/webauthn/vectors.json`.
    struct Vectors: Decodable {
        struct RelyingParty: Decodable { var id: String; var name: String; var origins: [String] }
        struct Registration: Decodable {
            var challenge: String, credentialId: String, clientDataJSON: String, attestationObject: String
            var transports: [String]
        }
        struct Assertion: Decodable {
            var challenge: String, credentialId: String, clientDataJSON: String, authenticatorData: String, signature: String
            var userHandle: String, registration: String, storedSignCount: UInt32
        }
        var relyingParty: RelyingParty
        var aaguid: String
        var registrations: [String: Registration]
        var assertions: [String: Assertion]
    }

    /// A fixture of `Server/Tests/Fixtures/webauthn`.
    static func fixture<T: Decodable>(_ name: String, as type: T.Type) -> T {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/webauthn/\(name)")
        return try! JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    static let vectors = fixture("vectors.json", as: Vectors.self)
    static let relyingParty = WebAuthnRelyingParty(id: vectors.relyingParty.id, name: vectors.relyingParty.name,
                                                   origins: vectors.relyingParty.origins)

    static func data(_ base64URL: String) -> Data { Data(base64URL: base64URL)! }

    static func registration(_ name: String) -> (response: WebAuthnRegistration, challenge: Data) {
        let vector = vectors.registrations[name]!
        return (WebAuthnRegistration(credentialID: data(vector.credentialId), clientDataJSON: data(vector.clientDataJSON),
                                     attestationObject: data(vector.attestationObject), transports: vector.transports),
                data(vector.challenge))
    }

    static func register(_ name: String, challenge: Data? = nil, relyingParty: WebAuthnRelyingParty = relyingParty) throws -> VerifiedCredential {
        let (response, issued) = registration(name)
        return try WebAuthnVerifier.verifyRegistration(response, challenge: challenge ?? issued, relyingParty: relyingParty)
    }

    static func assertion(_ name: String) -> (response: WebAuthnAssertion, challenge: Data) {
        let vector = vectors.assertions[name]!
        return (WebAuthnAssertion(credentialID: data(vector.credentialId), clientDataJSON: data(vector.clientDataJSON),
                                  authenticatorData: data(vector.authenticatorData), signature: data(vector.signature),
                                  userHandle: data(vector.userHandle)),
                data(vector.challenge))
    }

    /// Verifies assertion `name` against the credential its vector registered, as stored then.
    static func verify(_ name: String, challenge: Data? = nil, relyingParty: WebAuthnRelyingParty = relyingParty,
                       storedSignCount: UInt32? = nil,
                       tamper: (inout WebAuthnAssertion) -> Void = { _ in }) throws -> VerifiedAssertion {
        let vector = vectors.assertions[name]!
        let credential = try register(vector.registration)
        var (response, issued) = assertion(name)
        tamper(&response)
        return try WebAuthnVerifier.verifyAssertion(response, challenge: challenge ?? issued, relyingParty: relyingParty,
                                                    publicKey: credential.publicKey,
                                                    storedSignCount: storedSignCount ?? vector.storedSignCount,
                                                    backupEligible: credential.backupEligible)
    }

    @Test func registersASyncedPasskey() throws {
        let credential = try Self.register("es256-none-synced")
        #expect(credential.credentialID == Self.registration("es256-none-synced").response.credentialID)
        #expect(credential.algorithm == COSEKey.es256)
        #expect(credential.attestationFormat == "none")
        #expect(credential.signCount == 0)
        #expect(credential.backupEligible && credential.backedUp)
        #expect(credential.aaguid == UUID(uuidString: Self.vectors.aaguid))
        #expect(credential.transports == ["internal", "hybrid"])
        #expect(try COSEKey(bytes: credential.publicKey).algorithm == COSEKey.es256)
    }

    @Test(arguments: [("eddsa-packed-self", COSEKey.edDSA, false, UInt32(1)), ("es256-packed-self", COSEKey.es256, true, UInt32(0))])
    func registersSelfAttestedCredentials(name: String, algorithm: Int, backupEligible: Bool, signCount: UInt32) throws {
        let credential = try Self.register(name)
        #expect(credential.attestationFormat == "packed")
        #expect(credential.algorithm == algorithm)
        #expect(credential.backupEligible == backupEligible && !credential.backedUp)
        #expect(credential.signCount == signCount)
    }

    @Test func verifiesAssertions() throws {
        #expect(try Self.verify("es256-synced") == VerifiedAssertion(signCount: 0, backedUp: true, userVerified: true))
        #expect(try Self.verify("eddsa-counting") == VerifiedAssertion(signCount: 7, backedUp: false, userVerified: true))
    }

    // MARK: Attacks

    @Test func refusesAnotherChallenge() {
        let other = Data(repeating: 7, count: 32)
        #expect(throws: WebAuthnError.challengeMismatch) { try Self.register("es256-none-synced", challenge: other) }
        #expect(throws: WebAuthnError.challengeMismatch) { try Self.verify("es256-synced", challenge: other) }
        #expect(throws: WebAuthnError.challengeMismatch) { try Self.verify("eddsa-counting", challenge: Data()) }
    }

    @Test func refusesAnOriginNotAllowed() {
        #expect(throws: WebAuthnError.originNotAllowed("https://evil.example")) { try Self.verify("assertion-wrong-origin") }
        var elsewhere = Self.relyingParty
        elsewhere.origins = ["https://other.example.com", "android:apk-key-hash:AAAA"]
        #expect(throws: WebAuthnError.originNotAllowed("https://wallet.example.com")) {
            try Self.register("es256-none-synced", relyingParty: elsewhere)
        }
        #expect(throws: WebAuthnError.originNotAllowed("https://wallet.example.com")) {
            try Self.verify("es256-synced", relyingParty: elsewhere)
        }
    }

    @Test func refusesACrossOriginCeremony() {
        #expect(throws: WebAuthnError.crossOrigin) { try Self.verify("assertion-cross-origin") }
    }

    @Test func refusesAnotherRelyingParty() {
        #expect(throws: WebAuthnError.rpIDMismatch) { try Self.verify("assertion-wrong-rp") }
        var other = Self.relyingParty
        other.id = "example.com"
        #expect(throws: WebAuthnError.rpIDMismatch) { try Self.register("es256-none-synced", relyingParty: other) }
    }

    @Test func refusesAnUnverifiedUser() {
        #expect(throws: WebAuthnError.userNotVerified) { try Self.register("registration-uv-not-set") }
        #expect(throws: WebAuthnError.userNotVerified) { try Self.verify("assertion-uv-not-set") }
    }

    @Test func refusesATamperedSignature() {
        #expect(throws: WebAuthnError.badSignature) { try Self.verify("es256-synced") { $0.signature[20] ^= 0x01 } }
        #expect(throws: WebAuthnError.badSignature) { try Self.verify("eddsa-counting") { $0.signature[0] ^= 0x80 } }
        #expect(throws: WebAuthnError.badSignature) { try Self.verify("es256-synced") { $0.signature = Data() } }
        // The counter raised by whoever replays the response: the signature no longer covers the data.
        #expect(throws: WebAuthnError.badSignature) { try Self.verify("eddsa-counting") { $0.authenticatorData[36] += 1 } }
        // Another credential's signature over the same kind of data.
        #expect(throws: WebAuthnError.badSignature) {
            try Self.verify("es256-synced") { $0.signature = Self.assertion("eddsa-counting").response.signature }
        }
    }

    @Test func refusesATamperedSelfAttestation() throws {
        var (response, challenge) = Self.registration("eddsa-packed-self")
        let attestation = response.attestationObject
        let signature = try #require(try AttestationObject(attestation).statement.signature)
        let at = try #require(attestation.range(of: signature))
        response.attestationObject[at.lowerBound + 5] ^= 0x01
        #expect(throws: WebAuthnError.badSignature) {
            try WebAuthnVerifier.verifyRegistration(response, challenge: challenge, relyingParty: Self.relyingParty)
        }
    }

    @Test func refusesASignCountRegression() throws {
        #expect(try Self.verify("eddsa-counting", storedSignCount: 6).signCount == 7)
        #expect(throws: WebAuthnError.signCountRegression) { try Self.verify("eddsa-counting", storedSignCount: 7) }
        #expect(throws: WebAuthnError.signCountRegression) { try Self.verify("eddsa-counting", storedSignCount: 8) }
        // A credential that counted before and now says 0 was cloned or reset.
        #expect(throws: WebAuthnError.signCountRegression) { try Self.verify("es256-synced", storedSignCount: 3) }
    }

    @Test func refusesTheWrongCeremonyType() {
        #expect(throws: WebAuthnError.wrongType) { try Self.register("registration-wrong-type") }
        #expect(throws: WebAuthnError.wrongType) { try Self.verify("assertion-wrong-type") }
    }

    @Test func refusesAChangedBackupEligibility() {
        #expect(throws: WebAuthnError.backupEligibilityChanged) { try Self.verify("assertion-be-cleared") }
    }

    @Test func refusesACredentialIDOtherThanTheAttestedOne() {
        var (response, challenge) = Self.registration("es256-none-synced")
        response.credentialID[0] ^= 0x01
        #expect(throws: WebAuthnError.credentialMismatch) {
            try WebAuthnVerifier.verifyRegistration(response, challenge: challenge, relyingParty: Self.relyingParty)
        }
    }
}

extension AttestationObject.Statement {
    /// The signature of a `packed` statement.
    var signature: Data? {
        if case .packedSelf(_, let signature) = self { return signature }
        return nil
    }
}
