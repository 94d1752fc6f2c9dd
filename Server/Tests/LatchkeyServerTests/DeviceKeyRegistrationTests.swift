import Crypto
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
import X509

/// The phone sign-up's key registration: a proof of possession, a session limited until it, a
/// certificate that names only the wallet and the key, and a revocation status relying parties read.
@Suite struct DeviceKeyRegistrationTests {
    static let path = "/identity/pki/client/certificates"

    func withSignupServer(engine: String, binding: DeviceBindingMode = .required,
                          _ body: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(engine: engine, configure: {
            SignupFixture.configure(&$0)
            $0.publicURL = TestDeviceKey.base
            $0.issuer.deviceBinding = binding
        }, body)
    }

    /// The default is `required`: a new server binds every wallet session to a device key.
    @Test func deviceBindingIsRequiredByDefault() {
        #expect(ServerConfiguration().issuer.deviceBinding == .required)
    }

    /// Attack: a session (here an unbound `/v1` session) has the server sign a key it does not hold,
    /// with a subject from a client header. The call needs a proof by the key in the body, and
    /// the certificate names only the wallet and the proven key.
    @Test(arguments: TestEnvironment.engines)
    func aCertificateNeedsAProofByItsKeyAndNamesNoHeader(engine: String) async throws {
        try await withSignupServer(engine: engine, binding: .optional) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let stranger = P256.Signing.PrivateKey()
            var headers = appHeaders(device: "label,URI:urn:evil", session: session)
            let unproven = try await client.call(.put, Self.path, headers: headers,
                                                 body: ["publicKey": stranger.publicKey.pemRepresentation])
            #expect(unproven.status == .unauthorized, "\(unproven.json)")
            #expect(unproven.failure?.id == "invalid_dpop_proof")
            #expect(unproven.headers[.wwwAuthenticate]?.hasPrefix("DPoP") == true)

            let device = TestDeviceKey()
            headers[HTTPField.Name("DPoP")!] = device.proof("PUT", Self.path)
            let issued = try await client.call(.put, Self.path, headers: headers,
                                               body: ["publicKey": device.key.publicKey.pemRepresentation])
            #expect(issued.status == .ok, "\(issued.json)")
            #expect(issued.decoded(Components.Schemas.DeviceCertificate.self)?.tokenType == .dPoP)
            let certificate = try Certificate(pemEncoded: try #require(issued.decoded(Components.Schemas.DeviceCertificate.self)?.certificate))
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let customer = "urn:latchkey:customer:\(user.id)"
            let names = try #require(try certificate.extensions.subjectAlternativeNames)
            #expect(Array(names) == [.uniformResourceIdentifier(customer),
                                     .uniformResourceIdentifier("urn:ietf:params:oauth:jwk-thumbprint:sha-256:" + device.thumbprint)])
            #expect(certificate.subject.description.contains(customer))
            #expect(!certificate.subject.description.contains("evil") && !"\(names)".contains("evil"))
            #expect(try await app.store.device(userID: user.id, deviceID: "jkt:" + device.thumbprint)?.label == "label,URI:urn:evil",
                    "the header is only the device's label")
        }
    }

    /// A phone sign-up's session works on Kratos's whoami, the key registration and logout only,
    /// until the key is registered; then it is bound and works on `/v1` with proofs by that key.
    @Test(arguments: TestEnvironment.engines)
    func aSignupSessionIsLimitedUntilItsKeyIsRegistered(engine: String) async throws {
        try await withSignupServer(engine: engine) { app, client in
            let device = TestDeviceKey()
            let flow = try await SignupFixture.verifiedFlow(app, client)
            let registered = try await SignupFixture.finish(client, flow: flow, headers: appHeaders(device: "phone-1").with(proof: device.proof(
                "POST", "/a/self-service/registration")))
            let token = try #require(registered.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken, "\(registered.json)")

            let early = try await client.dpopCall(device, .get, "/v1/profile", token: token)
            #expect(early.status == .unauthorized, "\(early.json)")
            #expect(early.failure?.id == "device_key_required")
            #expect(early.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            var kratos = HTTPFields()
            kratos[HTTPField.Name("X-Session-Token")!] = token
            let whoami = "/a/sessions/whoami"
            #expect(try await client.call(.get, whoami, headers: kratos.with(proof: device.proof("GET", whoami, token: token))).status == .ok)

            let issued = try await client.call(.put, Self.path, headers: appHeaders().with(proof: device.proof("PUT", Self.path, token: token),
                                                                                          dpopToken: token),
                                               body: ["publicKey": device.key.publicKey.pemRepresentation])
            #expect(issued.status == .ok, "\(issued.json)")
            let profile = try await client.dpopCall(device, .get, "/v1/profile", token: token)
            #expect(profile.status == .ok, "\(profile.json)")
            #expect(profile.decoded(Customer.self)?.username == SignupFixture.phone)
        }
    }

    /// With `required`, a Kratos login without a proof opens a session that `/v1` refuses until a
    /// key is registered with it; the key registration binds it.
    @Test(arguments: TestEnvironment.engines)
    func anUnboundSessionNeedsItsKeyOnTheWalletAPI(engine: String) async throws {
        try await withSignupServer(engine: engine) { app, client in
            let flow = try await SignupFixture.verifiedFlow(app, client)
            #expect(try await SignupFixture.finish(client, flow: flow).status == .ok)
            let login = try await client.call(.get, "/a/self-service/login/api", headers: [:])
            let loginID = try #require(login.decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            let right = try await client.call(.post, "/a/self-service/login?flow=\(loginID)", headers: SignupFixture.json,
                                              body: ["method": "password", "identifier": SignupFixture.phone, "password": "000000"])
            let token = try #require(right.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken, "\(right.json)")
            let bearer = try await client.call(.get, "/v1/profile", headers: appHeaders(session: token))
            #expect(bearer.status == .unauthorized)
            #expect(bearer.failure?.id == "device_key_required")

            let device = TestDeviceKey()
            let issued = try await client.call(.put, Self.path, headers: appHeaders(session: token).with(proof: device.proof("PUT", Self.path)),
                                               body: ["publicKey": device.key.publicKey.pemRepresentation])
            #expect(issued.status == .ok, "\(issued.json)")
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: token)).status == .unauthorized,
                    "now bound: a bearer copy is refused")
            #expect(try await client.dpopCall(device, .get, "/v1/profile", token: token).status == .ok)
        }
    }

    /// Relying parties read a certificate's status: good while its device holds it, revoked once
    /// a newer certificate replaces it or the device is unlinked.
    @Test(arguments: TestEnvironment.engines)
    func relyingPartiesSeeRevocation(engine: String) async throws {
        try await withSignupServer(engine: engine) { app, client in
            let device = TestDeviceKey()
            let session = try await AuthFixture.keyEnrolledSession(app, client, key: device)
            func register() async throws -> String {
                let issued = try await client.dpopCall(device, .put, Self.path, token: session,
                                                       body: ["publicKey": device.key.publicKey.pemRepresentation])
                #expect(issued.status == .ok, "\(issued.json)")
                return try #require(issued.decoded(Components.Schemas.DeviceCertificate.self)?.serialNumber)
            }
            func status(_ serial: String) async throws -> JSONAnswer {
                try await client.call(.get, Self.path + "/" + serial, headers: [:])
            }
            let first = try await register()
            #expect(try await status(first).decoded(Components.Schemas.DeviceCertificateStatus.self)?.status == .good)
            let second = try await register()
            let replaced = try await status(first)
            #expect(replaced.decoded(Components.Schemas.DeviceCertificateStatus.self)?.status == .revoked && replaced.decoded(Components.Schemas.DeviceCertificateStatus.self)?.revokedAt != nil, "\(replaced.json)")
            #expect(try await status(second.uppercased()).decoded(Components.Schemas.DeviceCertificateStatus.self)?.status == .good)

            #expect(try await client.dpopCall(device, .delete, "/v1/devices/jkt:" + device.thumbprint, token: session).status == .noContent)
            #expect(try await status(second).decoded(Components.Schemas.DeviceCertificateStatus.self)?.status == .revoked, "unlinking the device revokes its certificate")

            let unknown = try await status("abcdef")
            #expect(unknown.status == .notFound && unknown.failure?.code == 404, "\(unknown.json)")
            #expect(try await status("not-hex").status == .badRequest)
        }
    }

    /// The key registration refuses a key another wallet has linked (409) and a device this wallet
    /// deactivated (423), writing nothing.
    @Test(arguments: TestEnvironment.engines)
    func theKeyRegistrationRefusesATakenKeyAndADeactivatedDevice(engine: String) async throws {
        try await withSignupServer(engine: engine) { app, client in
            let theirs = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: theirs)
            let flow = try await SignupFixture.verifiedFlow(app, client)
            let token = try #require(try await SignupFixture.finish(client, flow: flow).decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken)
            func register(_ key: TestDeviceKey) async throws -> JSONAnswer {
                try await client.call(.put, Self.path, headers: appHeaders(session: token).with(proof: key.proof("PUT", Self.path)),
                                      body: ["publicKey": key.key.publicKey.pemRepresentation])
            }
            let taken = try await register(theirs)
            #expect(taken.status == .conflict && taken.failure?.id == "device_key_in_use", "\(taken.json)")
            let user = try #require(try await app.store.user(issuer: "default", phoneNormalized: SignupFixture.phone))
            #expect(try await app.store.deviceCertificates(userID: user.id, deviceID: "jkt:" + theirs.thumbprint).isEmpty)

            let mine = TestDeviceKey()
            try await app.store.linkDevice(userID: user.id, deviceID: "jkt:" + mine.thumbprint, deviceType: nil, now: Date())
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "jkt:" + mine.thumbprint, status: .deactivated, now: Date())
            let deactivated = try await register(mine)
            #expect(deactivated.status.code == 423 && deactivated.failure?.id == "device_deactivated", "\(deactivated.json)")
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: token)).failure?.id
                    == "device_key_required", "the session is still limited")
        }
    }

    /// A certificate past its `notAfter` reads `expired`.
    @Test func anExpiredCertificateReadsExpired() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: { $0.publicURL = TestDeviceKey.base }) { app, client in
            let device = TestDeviceKey()
            let session = try await AuthFixture.keyEnrolledSession(app, client, key: device)
            let issued = try await client.dpopCall(device, .put, Self.path, token: session,
                                                   body: ["publicKey": device.key.publicKey.pemRepresentation])
            let serial = try #require(issued.decoded(Components.Schemas.DeviceCertificate.self)?.serialNumber, "\(issued.json)")
            clock.advance(91 * 86_400)
            let status = try await client.call(.get, Self.path + "/" + serial, headers: [:])
            #expect(status.decoded(Components.Schemas.DeviceCertificateStatus.self)?.status == .expired, "\(status.json)")
        }
    }
}

