import Crypto
import Foundation
import HummingbirdTesting
import LatchkeyCore
import LatchkeyDomain
import LatchkeyTestSupport
import Testing

/// The worked example of a sealed credential that `docs/api.md` ("Sealed credentials") and the
/// SDK's article (`Latchkey.docc/SealedCredentials.md`) print for integrators: computed here from
/// its fixed keys with the server's own code, and compared with the text of both documents, so the
/// example an outside implementation is checked against cannot drift from what the server does.
@Suite struct SealedCredentialExampleTests {
    /// The example's keys: private scalars 01 02 … 20 and 21 22 … 40 (test values, never a real key).
    static let sealKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: Data(1...32))
    static let deviceKey = try! P256.Signing.PrivateKey(rawRepresentation: Data(33...64))
    static let operation = "loginByUsernamePassword", field = "/password", jti = "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b"
    /// Not ASCII, so the example shows the plaintext is the value's UTF-8 bytes (ë is C3 AB).
    static let value = "Zo\u{EB}-2026"

    static let documents = ["docs/api.md", "Sources/Latchkey/Latchkey.docc/SealedCredentials.md"]

    static func text(of path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static var thumbprint: String { DPoPVerifier.thumbprint(of: deviceKey.publicKey) }

    /// The example as both documents print it (all but the sealed value, which is random per seal).
    static var example: String {
        let keyring = SealKeyring(current: sealKey)
        let point = deviceKey.publicKey.rawRepresentation
        let jwk = #"{"crv":"P-256","kty":"EC","x":"\#(TestDeviceKey.b64(point.prefix(32)))","y":"\#(TestDeviceKey.b64(point.suffix(32)))"}"#
        let info = SealedCredential.info(field: field, operation: operation, keyThumbprint: thumbprint, proofID: jti)
        // The info's hex a part per line, each part after the first led by its NUL separator.
        let parts = info.split(separator: 0, omittingEmptySubsequences: false).map { hex($0) }
        let infoLines = [parts[0]] + parts.dropFirst().map { "00 " + $0 }
        let rows: [(String, String)] = [
            ("seal key (private, hex)", hex(sealKey.rawRepresentation)),
            ("publicKey (base64)", keyring.current.publicKey),
            ("SHA-256 of its 65 bytes", hex(SHA256.hash(data: sealKey.publicKey.x963Representation))),
            ("keyId", keyring.current.id),
            ("pin", keyring.current.pin),
            ("device key (private, hex)", hex(deviceKey.rawRepresentation)),
            ("its JWK, RFC 7638 form", jwk),
            ("thumbprint", thumbprint),
            ("operation", operation),
            ("field", field),
            ("proof jti", jti),
            ("info (hex)", infoLines[0]),
        ] + infoLines.dropFirst().map { ("", $0) } + [
            ("value", value),
            ("plaintext (hex)", hex(Data(value.utf8))),
        ]
        return rows.map { $0.0.padding(toLength: 28, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    /// The example's sealed value as the document at `path` prints it.
    static func sealed(in path: String) throws -> String {
        let text = try text(of: path)
        let expression = try NSRegularExpression(pattern: #"hpke1\.[0-9a-f]{16}\.[A-Za-z0-9_-]{80,}\.[A-Za-z0-9_-]+"#)
        guard let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range, in: text) else {
            Issue.record("\(path) prints no sealed value of the example")
            throw CocoaError(.fileReadCorruptFile)
        }
        return String(text[range])
    }

    @Test func theDocumentsPrintTheExampleTheServerComputes() throws {
        for path in Self.documents {
            let prints = try Self.text(of: path).contains(Self.example)
            #expect(prints, "\(path) prints the example exactly so:\n\(Self.example)")
        }
    }

    /// The sealed value both documents print opens, with the server's keyring, to the value's
    /// bytes only under the example's info: another jti or thumbprint does not open it.
    @Test func theExamplesSealedValueOpensUnderItsInfo() throws {
        let printed = try Self.documents.map { try Self.sealed(in: $0) }
        #expect(Set(printed).count == 1, "both documents print the same sealed value")
        let keyring = SealKeyring(current: Self.sealKey)
        let opened = try keyring.open(printed[0], field: Self.field, operation: Self.operation, keyThumbprint: Self.thumbprint,
                                      proofID: Self.jti, now: Date())
        #expect(Data(opened.utf8) == Data([0x5a, 0x6f, 0xc3, 0xab, 0x2d, 0x32, 0x30, 0x32, 0x36]))
        #expect(throws: SealKeyring.Refusal.doesNotOpen) {
            try keyring.open(printed[0], field: Self.field, operation: Self.operation, keyThumbprint: "jkt:" + Self.thumbprint,
                             proofID: Self.jti, now: Date())
        }
    }

    /// A server holding the example's seal key opens the printed value in a login proved by the
    /// example's device key with the example's jti (the login then fails for the unknown user, not
    /// for the seal); under a proof with another jti the same value is refused naming the field.
    @Test(arguments: TestEnvironment.engines)
    func aServerWithTheExamplesKeyOpensIt(engine: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("seal-key.pem").path
        try Self.sealKey.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let sealed = try Self.sealed(in: "docs/api.md")
        try await withServer(engine: engine, configure: { configuration in
            SealedCredentialTests.sealing(&configuration)
            configuration.secrets.sealKeyFile = keyFile
        }) { _, client in
            let device = TestDeviceKey(key: Self.deviceKey), path = "/v1/auth/login/password"
            func login(jti: String) async throws -> JSONAnswer {
                try await client.proved(device, path, jti: jti, body: ["username": "nobody@example.com", "password": sealed])
            }
            let opened = try await login(jti: Self.jti)
            #expect(opened.failure != nil && opened.errorField != "password", "the seal opened: \(opened.json)")
            let other = try await login(jti: UUID().uuidString)
            #expect(other.status == .badRequest && other.errorField == "password" && other.failure?.id == "invalid_field", "\(other.json)")
        }
    }
}
