#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Crypto
import Foundation
import HTTPTypes
import Latchkey
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import Testing

/// A transport that keeps every request body it sends, as a TLS-terminating proxy would see it.
final class RecordingTransport: ClientTransport {
    let inner = URLSessionTransport()
    let bodies = Mutex<[String]>([])

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var forwarded = body
        if let body {
            let data = try await Data(collecting: body, upTo: 1024 * 1024)
            bodies.withLock { $0.append(String(decoding: data, as: UTF8.self)) }
            forwarded = HTTPBody(data)
        }
        return try await inner.send(request, body: forwarded, baseURL: baseURL, operationID: operationID)
    }

    var all: String { bodies.withLock { $0.joined(separator: "\n") } }
}

/// Through the SDK: it seals every PIN, password and MFA answer the issuer requires
/// (and what the app's context asks for), and the server opens them.
@Suite struct SealedCredentialClientTests {
    /// Every call that carries a credential, with the issuer requiring all three sealed: each
    /// succeeds, and no request body (what a proxy in front of the server sees) holds a credential.
    @Test func theSDKSealsWhatTheIssuerRequires() async throws {
        let network = RecordingTransport()
        try await withLiveServer(transport: network, configure: { configuration in
            configuration.issuer.encryption.pin = true
            configuration.issuer.encryption.password = true
            configuration.issuer.encryption.mfaAnswers = true
        }) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            _ = try await sdk.authentication.loginByUsernamePassword(username: "grace@example.com", password: "cobol-rules-1959")
            _ = try await sdk.authentication.loginByPIN("314159")
            try await sdk.authentication.generateDeviceAuthenticationToken(username: "grace@example.com", password: "cobol-rules-1959")
            _ = try await sdk.enrollment.updateUserPasscode(oldPasscode: "314159", newPasscode: "271828", confirmNewPasscode: "271828")
            _ = try await sdk.enrollment.updateMFAAnswers(sampleProfile().mfaAnswers ?? [:])

            var context = sdk.context
            context.deviceID = "second-device"
            let second = testClient(context: context, transport: network)
            guard case .mfaRequired(var token) = try await second.authentication.loginByUsernamePassword(
                username: "grace@example.com", password: "cobol-rules-1959") else {
                Issue.record("an unlinked device must be prompted")
                return
            }
            token.mfaSecretAnswer = try #require(sampleProfile().mfaAnswers?[token.mfaSecretQuestion])
            guard case .authenticated = try await second.authentication.registerWithMFA(token) else {
                Issue.record("the sealed answer must authenticate")
                return
            }
            let seen = network.all
            #expect(seen.contains("hpke1."))
            for secret in ["cobol-rules-1959", "314159", "271828", "\"Rex\"", "New York", "Murray"] {
                #expect(!seen.contains(secret), "a request body holds \(secret)")
            }
        }
    }

    /// The app's context asks for PINs sealed where the issuer does not require it: the SDK seals
    /// them, and leaves the password as it is.
    @Test func theAppCanAskForMoreThanTheIssuer() async throws {
        let network = RecordingTransport()
        try await withLiveServer(transport: network, encryption: ["kEncryptPin": true]) { sdk, app in
            let registered = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            guard case .authenticated = try await sdk.authentication.loginByPIN("314159") else {
                Issue.record("a sealed PIN logs in")
                return
            }
            #expect(!network.all.contains("314159"))
            #expect(network.all.contains("cobol-rules-1959"), "the password was not asked to be sealed")
        }
    }

    /// Attack: an active interceptor serves its own public key. An app that pins the server's key
    /// refuses to seal to any other: the call fails closed and no credential leaves the phone; with
    /// the server's real pin (as `latchkey secrets generate` prints it) the same call goes through.
    @Test func aPinnedAppSealsOnlyToThePinnedKey() async throws {
        let network = RecordingTransport()
        try await withLiveServer(transport: network, configure: { $0.issuer.encryption.pin = true }) { sdk, app in
            var pinned = sdk.context
            pinned.sealKeyPins = [Data(SHA256.hash(data: P256.KeyAgreement.PrivateKey().publicKey.x963Representation)).base64EncodedString()]
            let misled = testClient(context: pinned, transport: network)
            await #expect(throws: LatchkeyError.self) { _ = try await misled.enrollment.registerNewUser(sampleProfile()) }
            #expect(!network.all.contains("314159") && !network.all.contains("cobol-rules-1959"), "nothing sent plain")

            var read = URLRequest(url: sdk.context.serverURL.appendingPathComponent("v1/enrollment/encryption-settings"))
            read.setValue(signature, forHTTPHeaderField: "X-Application-Signature")
            let served = try await URLSession.shared.data(for: read).0
            let settings = try JSONDecoder().decode(Components.Schemas.EncryptionSettingsResponse.self, from: served)
            let current = try #require(settings.keys.first { $0.current })
            pinned.sealKeyPins = [Data(SHA256.hash(data: try #require(Data(base64Encoded: current.publicKey)))).base64EncodedString()]
            let registered = try await testClient(context: pinned, transport: network).enrollment.registerNewUser(sampleProfile())
            #expect(!registered.nonce.isEmpty)
            #expect(!network.all.contains("314159"))
        }
    }

    /// The server rotated its seal key while an app still pins only the key before the rotation
    /// (its update with the new pin is not out yet): the SDK seals to that key, which the server
    /// still opens until its date, instead of refusing every call that carries a credential.
    @Test func anAppPinnedToThePreviousKeySealsToItAfterARotation() async throws {
        let previous = P256.KeyAgreement.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-seal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let previousFile = directory.appendingPathComponent("previous.pem").path
        try previous.pemRepresentation.write(toFile: previousFile, atomically: true, encoding: .utf8)
        let network = RecordingTransport()
        try await withLiveServer(transport: network, configure: { configuration in
            sealEverything(&configuration)
            configuration.secrets.previousSealKeys = [PreviousSealKey(file: previousFile, until: "2999-01-01T00:00:00Z")]
        }) { sdk, app in
            var pinned = sdk.context
            pinned.sealKeyPins = [Data(SHA256.hash(data: previous.publicKey.x963Representation)).base64EncodedString()]
            let registered = try await testClient(context: pinned, transport: network).enrollment.registerNewUser(sampleProfile())
            #expect(!registered.nonce.isEmpty)
            let keyID = SHA256.hash(data: previous.publicKey.x963Representation).prefix(8).map { String(format: "%02x", $0) }.joined()
            #expect(network.all.contains("hpke1.\(keyID)."), "sealed to the pinned previous key")
            #expect(!network.all.contains("314159") && !network.all.contains("cobol-rules-1959"))
        }
    }
}
