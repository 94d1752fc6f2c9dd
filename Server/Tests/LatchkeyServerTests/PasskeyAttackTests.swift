import Crypto
import Foundation
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Attacks on the passkey ceremonies over HTTP, each a response that is valid but for the one thing
/// the attacker changed, so only the one check can refuse it; the login is refused with
/// `invalid_credentials` (401) and no phone is linked.
@Suite(.serialized) struct PasskeyAttackTests {
    /// Runs `attack` against Ada's wallet with a registered passkey (counter `signCount`).
    func attack(_ engine: String, signCount: UInt32 = 0,
                _ attack: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol, SoftwareAuthenticator,
                                               SoftwareAuthenticator.Credential) async throws -> Void) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let ada = try await PasskeyFixture.adaWithPasskey(app, client, signCount: signCount)
            try await attack(app, client, ada.authenticator, ada.credential)
        }
    }

    /// An assertion captured in transit, sent again: its challenge was taken by the first login.
    @Test(arguments: TestEnvironment.engines)
    func aReplayedAssertionIsRefused(engine: String) async throws {
        try await attack(engine) { _, client, authenticator, credential in
            var captured: [String: Any] = [:]
            let first = try await PasskeyFixture.login(client) { options in
                captured = authenticator.get(options, with: credential)
                return captured
            }
            #expect(first.status == .ok, "\(first.json)")
            let replayed = try await client.call(.post, "/v1/auth/login/passkey", headers: appHeaders(device: "phone-2"),
                                                 body: ["credential": captured])
            PasskeyFixture.expectRefused(replayed)
        }
    }

    /// A phishing site relays the challenge; the browser states the site's origin.
    @Test(arguments: TestEnvironment.engines)
    func anAssertionFromAnotherOriginIsRefused(engine: String) async throws {
        try await attack(engine) { app, client, authenticator, credential in
            PasskeyFixture.expectRefused(try await PasskeyFixture.login(client) {
                authenticator.get($0, with: credential, origin: "https://wallet-example.evil")
            })
            #expect(try await PasskeyFixture.adaDevices(app) == ["device-1"])
        }
    }

    /// An assertion of a credential scoped to another relying party (its rpIdHash).
    @Test(arguments: TestEnvironment.engines)
    func anAssertionForAnotherRelyingPartyIsRefused(engine: String) async throws {
        try await attack(engine) { app, client, authenticator, credential in
            PasskeyFixture.expectRefused(try await PasskeyFixture.login(client) {
                authenticator.get($0, with: credential, rpID: "evil.example")
            })
            #expect(try await PasskeyFixture.adaDevices(app) == ["device-1"])
        }
    }

    /// An assertion signed over a challenge the server never issued (made up, or stale).
    @Test(arguments: TestEnvironment.engines)
    func anAssertionToAnotherChallengeIsRefused(engine: String) async throws {
        try await attack(engine) { app, client, authenticator, credential in
            PasskeyFixture.expectRefused(try await PasskeyFixture.login(client) {
                authenticator.get($0, with: credential, challenge: Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
            })
            #expect(try await PasskeyFixture.adaDevices(app) == ["device-1"])
        }
    }

    /// An authenticator that did not verify the user (a touch without the device's PIN or biometrics).
    @Test(arguments: TestEnvironment.engines)
    func anAssertionWithoutUserVerificationIsRefused(engine: String) async throws {
        try await attack(engine) { app, client, authenticator, credential in
            PasskeyFixture.expectRefused(try await PasskeyFixture.login(client) {
                authenticator.get($0, with: credential, flags: [.userPresent, .backupEligible, .backedUp])
            })
            #expect(try await PasskeyFixture.adaDevices(app) == ["device-1"])
        }
    }

    /// A signature altered in one bit.
    @Test(arguments: TestEnvironment.engines)
    func aTamperedSignatureIsRefused(engine: String) async throws {
        try await attack(engine) { app, client, authenticator, credential in
            PasskeyFixture.expectRefused(try await PasskeyFixture.login(client) { authenticator.get($0, with: credential, tamper: true) })
            #expect(try await PasskeyFixture.adaDevices(app) == ["device-1"])
        }
    }

    /// A cloned authenticator: its counter lags behind the one the server last accepted.
    @Test(arguments: TestEnvironment.engines)
    func aCounterThatWentBackIsRefused(engine: String) async throws {
        try await attack(engine, signCount: 10) { _, client, authenticator, credential in
            let genuine = try await PasskeyFixture.login(client) { authenticator.get($0, with: credential) }
            #expect(genuine.status == .ok, "counter 11: \(genuine.json)")
            PasskeyFixture.expectRefused(try await PasskeyFixture.login(client, device: "phone-3") {
                authenticator.get($0, with: credential, signCount: 5)
            })
        }
    }

    /// Ada's password on a new phone, and the prompt answered with Bob's passkey (which signs the
    /// prompt's challenge just as well): refused, the phone not linked.
    @Test(arguments: TestEnvironment.engines)
    func anotherWalletsPasskeyDoesNotAnswerThePrompt(engine: String) async throws {
        try await attack(engine) { app, client, _, _ in
            let bob = try await AuthFixture.enrolledSession(app, client, email: "bob@example.com", device: "device-b")
            let bobs = PasskeyFixture.authenticator()
            let registered = try await PasskeyFixture.register(client, session: bob, with: bobs, device: "device-b")
            #expect(registered.answer.status == .created)
            let prompt = try await AuthFixture.passwordLogin(client, device: "phone-2")
            let token = try #require(prompt.login?.mfaToken?.challengeToken, "\(prompt.json)")
            let options = try #require(prompt.json["mfaToken"] as? [String: Any])["passkeyOptions"] as? [String: Any] ?? [:]
            let answer = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "phone-2"),
                                               body: ["challengeToken": token, "passkey": bobs.get(options, with: registered.credential)])
            PasskeyFixture.expectRefused(answer)
            #expect(try await PasskeyFixture.adaDevices(app) == ["device-1"])
        }
    }

    /// Ada registers an authenticator's credential against a registration challenge Bob's
    /// session was given: refused, nothing registered.
    @Test(arguments: TestEnvironment.engines)
    func aRegistrationChallengeOfAnotherWalletIsRefused(engine: String) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let ada = try await AuthFixture.enrolledSession(app, client)
            let bob = try await AuthFixture.enrolledSession(app, client, email: "bob@example.com", device: "device-b")
            let bobsOptions = PasskeyFixture.publicKey(try await client.call(.post, "/v1/passkeys/registration-options",
                                                                             headers: appHeaders(device: "device-b", session: bob)))
            let adasOptions = PasskeyFixture.publicKey(try await client.call(.post, "/v1/passkeys/registration-options",
                                                                             headers: appHeaders(session: ada)))
            let made = PasskeyFixture.authenticator().create(adasOptions, challenge: SoftwareAuthenticator.data(bobsOptions["challenge"] as? String ?? ""))
            let answer = try await client.call(.post, "/v1/passkeys", headers: appHeaders(session: ada), body: ["credential": made.json])
            #expect(answer.status == .badRequest && answer.failure?.id == "passkey_rejected", "\(answer.json)")
            let list = try await client.call(.get, "/v1/passkeys", headers: appHeaders(session: ada)).decoded(Components.Schemas.PasskeyList.self)
            #expect(list?.passkeys.isEmpty == true)
        }
    }
}
