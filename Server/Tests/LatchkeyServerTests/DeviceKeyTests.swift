import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The device is its key: the attacks of the device-binding review that a device id header allowed.
@Suite struct DeviceKeyTests {
    func withKeyServer(engine: String = "sqlite", binding: DeviceBindingMode = .optional,
                       _ body: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(engine: engine, configure: {
            $0.publicURL = TestDeviceKey.base
            $0.issuer.deviceBinding = binding
        }, body)
    }

    /// Attack 1: a wallet registered with another user's device id took that id over, and the
    /// owner's right PIN then answered 401.
    @Test(arguments: TestEnvironment.engines)
    func anotherWalletCannotTakeOverADeviceByItsLabel(engine: String) async throws {
        try await withKeyServer(engine: engine) { app, client in
            let owner = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: owner, email: "owner@example.com", label: "phone-1")
            let attacker = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: attacker, email: "mallory@example.com", label: "phone-1")
            let pin = try await client.dpopCall(owner, .post, "/v1/auth/login/pin", device: "phone-1", body: ["pin": AuthFixture.pin])
            #expect(pin.status == .ok, "\(pin.json)")
            #expect(pin.login?.tokenType == .dPoP)
            let ownerID = try #require(try await app.store.user(issuer: "default", emailNormalized: "owner@example.com")).id
            #expect((pin.login?.customerUri)?.hasSuffix(ownerID) == true)
        }
    }

    /// Attack 2: anyone who knew a device id could try PINs against its wallet; 5 wrong ones
    /// deactivated the wallet and ended its sessions.
    @Test(arguments: TestEnvironment.engines)
    func pinGuessesFromAnotherKeyTouchNoWallet(engine: String) async throws {
        try await withKeyServer(engine: engine) { app, client in
            let owner = TestDeviceKey()
            let session = try await AuthFixture.keyEnrolledSession(app, client, key: owner, label: "phone-1")
            let attacker = TestDeviceKey()
            for guess in 0..<7 {
                let answer = try await client.dpopCall(attacker, .post, "/v1/auth/login/pin", device: "phone-1",
                                                       body: ["pin": String(format: "%06d", guess)])
                #expect(answer.status == .unauthorized)
                #expect(answer.errorCode == 401)
            }
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.status == .active)
            #expect(user.failedAttempts == 0)
            #expect(try await client.dpopCall(owner, .get, "/v1/auth/session", token: session).status == .ok)
            #expect(try await client.dpopCall(owner, .post, "/v1/auth/login/pin", device: "phone-1",
                                              body: ["pin": AuthFixture.pin]).status == .ok)
        }
    }

    /// A password login from a key the wallet has not linked gets the MFA prompt, whatever
    /// device id it claims; a key linked to one wallet cannot be linked to another.
    @Test(arguments: TestEnvironment.engines)
    func anUnlinkedKeyIsPromptedAndAKeyBelongsToOneWallet(engine: String) async throws {
        try await withKeyServer(engine: engine) { app, client in
            let owner = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: owner, label: "phone-1")
            let other = TestDeviceKey()
            let login = try await client.dpopCall(other, .post, "/v1/auth/login/password", device: "phone-1",
                                                  body: ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(login.status == .ok)
            #expect(login.login?.code == 412, "\(login.json)")
            let own = try await client.dpopCall(owner, .post, "/v1/auth/login/password", device: "another-label",
                                                body: ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(own.login?.sessionToken != nil, "\(own.json)")

            let second = try await client.dpopCall(owner, .post, "/v1/enrollment/users", body: registrationBody(email: "bob@example.com"))
            let nonce = try #require(second.registration?.nonce)
            try await AuthFixture.verifyEmail(app, client, email: "bob@example.com")
            let taken = try await client.dpopCall(owner, .post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            #expect(taken.status == .conflict, "\(taken.json)")
            #expect(taken.failure?.id == "device_key_in_use")
            // A header cannot name a key device.
            let forged = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(device: "jkt:" + owner.thumbprint),
                                               body: ["pin": AuthFixture.pin])
            #expect(forged.status == .badRequest)
            #expect(forged.errorField == "X-Device-ID")
        }
    }

    /// With `deviceBinding: required`, a PIN login without a proof is refused before any wallet is
    /// looked at, and the header decides nothing.
    @Test(arguments: TestEnvironment.engines)
    func requiredBindingRefusesDeviceCallsWithoutAProof(engine: String) async throws {
        try await withKeyServer(engine: engine, binding: .required) { app, client in
            let owner = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: owner, label: "phone-1")
            for _ in 0..<6 {
                let answer = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(device: "phone-1"), body: ["pin": "000000"])
                #expect(answer.status == .unauthorized)
                #expect(answer.failure?.id == "invalid_dpop_proof")
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix("DPoP") == true)
            }
            let register = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "bob@example.com"))
            #expect(register.failure?.id == "invalid_dpop_proof")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.failedAttempts == 0)
            #expect(try await client.dpopCall(owner, .post, "/v1/auth/login/pin", device: "phone-1",
                                              body: ["pin": AuthFixture.pin]).status == .ok)
        }
    }
}

/// `GET /v1/devices` and `DELETE /v1/devices/{id}`.
@Suite struct DeviceListTests {
    @Test(arguments: TestEnvironment.engines)
    func devicesAreListedAndUnlinkingEndsTheirSessions(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.publicURL = TestDeviceKey.base }) { app, client in
            let phone = TestDeviceKey()
            let phoneSession = try await AuthFixture.keyEnrolledSession(app, client, key: phone, label: "Ada's phone")
            let tablet = TestDeviceKey()
            let prompt = try await client.dpopCall(tablet, .post, "/v1/auth/login/password", device: "tablet",
                                                   body: ["username": "ada@example.com", "password": AuthFixture.password])
            let challenge = try #require((prompt.login?.mfaToken))
            let question = try #require(challenge.mfaSecretQuestion)
            let answers = ["What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                           "What is your mother's maiden name?": "Byron"]
            let linked = try await client.dpopCall(tablet, .post, "/v1/auth/mfa", device: "tablet",
                                                   body: ["challengeToken": challenge.challengeToken, "mfaSecretAnswer": answers[question]!])
            let tabletSession = try #require(linked.login?.sessionToken, "\(linked.json)")

            let list = try await client.dpopCall(phone, .get, "/v1/devices", token: phoneSession)
            #expect(list.status == .ok, "\(list.json)")
            let devices = try #require(list.decoded(Components.Schemas.DeviceList.self)?.devices)
            // Both were linked within one second; the list is by link time, then id.
            let byID = Dictionary(uniqueKeysWithValues: devices.map { ($0.id, $0) })
            #expect(Set(byID.keys) == ["jkt:" + phone.thumbprint, "jkt:" + tablet.thumbprint])
            let mine = try #require(byID["jkt:" + phone.thumbprint])
            let other = try #require(byID["jkt:" + tablet.thumbprint])
            #expect(mine.label == "Ada's phone")
            #expect(other.label == "tablet")
            #expect(mine.thumbprint == phone.thumbprint)
            #expect(other.thumbprint == tablet.thumbprint)
            #expect(mine.current)
            #expect(!other.current)
            #expect(devices.allSatisfy { $0.status == .active })   // linkedAt is required: decoding checked it

            let path = "/v1/devices/jkt:" + tablet.thumbprint
            #expect(try await client.dpopCall(phone, .delete, path, token: phoneSession).status == .noContent)
            #expect(try await client.dpopCall(tablet, .get, "/v1/auth/session", token: tabletSession).status == .unauthorized)
            #expect(try await client.dpopCall(phone, .get, "/v1/auth/session", token: phoneSession).status == .ok)
            let again = try await client.dpopCall(phone, .delete, path, token: phoneSession)
            #expect(again.status == .notFound)
            #expect(again.errorField == "deviceId")
            // The unlinked key is a stranger again: its password login is prompted.
            let stranger = try await client.dpopCall(tablet, .post, "/v1/auth/login/password", device: "tablet",
                                                     body: ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(stranger.login?.code == 412)
            #expect(try await client.call(.get, "/v1/devices").status == .unauthorized)
        }
    }
}

/// The phone sign-up's key registration proves possession of the key it registers.
@Suite struct CertificateProofTests {
    /// A server with phone sign-up on whose public URL proofs can name their `htu`.
    func withSignupServer(engine: String,
                          _ body: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(engine: engine, configure: {
            SignupFixture.configure(&$0)
            $0.publicURL = TestDeviceKey.base
        }, body)
    }

    @Test(arguments: TestEnvironment.engines)
    func aCertificateIsIssuedOnlyForTheProvenKey(engine: String) async throws {
        try await withSignupServer(engine: engine) { app, client in
            let device = TestDeviceKey()
            let flow = try await SignupFixture.verifiedFlow(app, client)
            let registered = try await SignupFixture.finish(client, flow: flow,
                                                            headers: appHeaders(device: "phone-1").with(proof: device.proof(
                                                                "POST", "/a/self-service/registration")))
            let token = try #require(registered.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken, "\(registered.json)")
            let path = "/identity/pki/client/certificates"
            let other = TestDeviceKey()
            let wrongKey = try await client.call(.put, path, headers: appHeaders().with(proof: device.proof("PUT", path, token: token),
                                                                                       dpopToken: token),
                                                 body: ["publicKey": other.key.publicKey.pemRepresentation])
            #expect(wrongKey.status == .badRequest, "\(wrongKey.json)")
            #expect((wrongKey.failure?.reason)?.hasPrefix("publicKey") == true, "\(wrongKey.json)")
            let issued = try await client.call(.put, path, headers: appHeaders().with(proof: device.proof("PUT", path, token: token),
                                                                                     dpopToken: token),
                                               body: ["publicKey": device.key.publicKey.pemRepresentation])
            #expect(issued.status == .ok, "\(issued.json)")
            let user = try #require(try await app.store.user(issuer: "default", phoneNormalized: SignupFixture.phone))
            #expect(try await app.store.deviceCertificates(userID: user.id, deviceID: "jkt:" + device.thumbprint).count == 1)

            // The bound session in Kratos's header: the proof must hash this token (`ath`), so a
            // proof made for another request or token cannot carry it.
            let whoami = "/a/sessions/whoami"
            var kratos = HTTPFields()
            kratos[HTTPField.Name("X-Session-Token")!] = token
            let unbound = try await client.call(.get, whoami, headers: kratos.with(proof: device.proof("GET", whoami)))
            #expect(unbound.status == .unauthorized, "a proof without ath: \(unbound.json)")
            let hashed = try await client.call(.get, whoami, headers: kratos.with(proof: device.proof("GET", whoami, token: token)))
            #expect(hashed.status == .ok, "\(hashed.json)")
        }
    }

    /// A phone sign-up from a key that another wallet has linked is refused (409), in the
    /// transaction that would have created the user.
    @Test(arguments: TestEnvironment.engines)
    func aSignupCannotTakeAnotherWalletsKey(engine: String) async throws {
        try await withSignupServer(engine: engine) { app, client in
            let device = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: device)
            let flow = try await SignupFixture.verifiedFlow(app, client)
            let taken = try await SignupFixture.finish(client, flow: flow, headers: appHeaders().with(proof: device.proof(
                "POST", "/a/self-service/registration")))
            #expect(taken.status == .conflict, "\(taken.json)")
            #expect(taken.failure?.id == "device_key_in_use")
            #expect(try await app.store.user(issuer: "default", phoneNormalized: SignupFixture.phone) == nil)
        }
    }
}
