import Foundation
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import Testing

/// Passkeys over HTTP: the relying party the tests configure and the steps that register a passkey
/// and sign in with it through `SoftwareAuthenticator`.
enum PasskeyFixture {
    static let origin = "https://wallet.example"
    static let rpID = "wallet.example"

    /// The test server reached at `origin` (where the DPoP proofs point too): the relying party
    /// is its default, `publicURL`'s host and origin.
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.publicURL = TestDeviceKey.base
    }

    static func authenticator() -> SoftwareAuthenticator { SoftwareAuthenticator(origin: origin, rpID: rpID) }

    /// `publicKey` of an options answer.
    static func publicKey(_ answer: JSONAnswer) -> [String: Any] { answer.json["publicKey"] as? [String: Any] ?? [:] }

    /// Asks for registration options with `session` (from `device`) and registers what
    /// `authenticator` makes for them; answers the credential and the registration's answer.
    static func register(_ client: any TestClientProtocol, session: String, with authenticator: SoftwareAuthenticator,
                         device: String = "device-1", algorithm: SoftwareAuthenticator.Algorithm = .es256, format: String = "none",
                         signCount: UInt32 = 0, name: String? = nil)
        async throws -> (credential: SoftwareAuthenticator.Credential, answer: JSONAnswer) {
        let options = try await client.call(.post, "/v1/passkeys/registration-options", headers: appHeaders(device: device, session: session))
        #expect(options.status == .ok, "\(options.json)")
        let made = authenticator.create(publicKey(options), algorithm: algorithm, format: format, signCount: signCount)
        var body: [String: Any] = ["credential": made.json]
        if let name { body["name"] = name }
        let answer = try await client.call(.post, "/v1/passkeys", headers: appHeaders(device: device, session: session), body: body)
        return (made.credential, answer)
    }

    /// Registers Ada (`AuthFixture.enrolledSession` on device-1) and a passkey of hers; answers
    /// her session, her authenticator and the credential.
    static func adaWithPasskey(_ app: LatchkeyApplication, _ client: any TestClientProtocol, signCount: UInt32 = 0)
        async throws -> (session: String, authenticator: SoftwareAuthenticator, credential: SoftwareAuthenticator.Credential) {
        let session = try await AuthFixture.enrolledSession(app, client)
        let authenticator = authenticator()
        let registered = try await register(client, session: session, with: authenticator, signCount: signCount)
        #expect(registered.answer.status == .created, "\(registered.answer.json)")
        return (session, authenticator, registered.credential)
    }

    /// A discoverable login from `device`: options, then `assertion` made for them.
    static func login(_ client: any TestClientProtocol, device: String = "phone-2",
                      assertion: ([String: Any]) -> [String: Any]) async throws -> JSONAnswer {
        let options = try await client.call(.post, "/v1/auth/login/passkey/options", headers: appHeaders(device: device))
        #expect(options.status == .ok, "\(options.json)")
        return try await client.call(.post, "/v1/auth/login/passkey", headers: appHeaders(device: device),
                                     body: ["credential": assertion(publicKey(options))])
    }

    /// Expects the refusal every rejected passkey login gets, and no session.
    static func expectRefused(_ answer: JSONAnswer, _ comment: Comment? = nil) {
        #expect(answer.status == .unauthorized && answer.failure?.id == "invalid_credentials", "\(comment?.rawValue ?? ""): \(answer.json)")
        #expect(answer.login?.sessionToken == nil)
    }

    /// The ids of the devices linked to Ada's wallet.
    static func adaDevices(_ app: LatchkeyApplication) async throws -> [String] {
        let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
        return try await app.store.devices(userID: user.id).map(\.deviceID)
    }
}
