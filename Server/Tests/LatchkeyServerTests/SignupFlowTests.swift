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
import NIOCore
import Testing
import X509

/// `spec/phone-signup-flow.txt` over HTTP: the document's four requests, then what a Kratos
/// client does next (whoami, login, logout) and the device certificate.
@Suite struct SignupFlowTests {
    @Test(arguments: TestEnvironment.engines)
    func theDocumentedTrafficAnswersAsShown(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            SignupFixture.configure(&$0)
            $0.publicURL = TestDeviceKey.base
        }) { app, client in
            let created = try await client.call(.get, "/a/self-service/registration/api", headers: [:])
            #expect(created.status == .ok)
            #expect(created.headers[.contentType]?.hasPrefix("application/json") == true)
            // The flow's every required field (`expires_at`, `issued_at`, `request_url`, ...) decodes.
            let flow = try #require(created.decoded(Components.Schemas.SelfServiceFlow.self), "\(created.json)")
            let id = flow.id
            #expect(UUID(uuidString: id) != nil)
            #expect(flow._type == "api")
            #expect(flow.state == "choose_method")
            #expect(flow.ui.action.hasSuffix("/a/self-service/registration?flow=\(id)"))
            #expect(flow.ui.method == "POST")
            let names = flow.ui.nodes.map(\.attributes.name)
            #expect(names.contains("traits.phone") && names.contains("password") && names.contains("traits.name.first"))

            let sent = try await client.execute(
                uri: "/identity/verification/flow/phone", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: """
                    {
                    "phoneNumber": "+439999999999",
                    "phoneType": "PRIMARY",
                    "flowId": "\(id)",
                    "flowType": "REGISTRATION"
                    }
                    """)) { ($0.status, $0.body.readableBytes) }
            #expect(sent.0 == .created)
            #expect(sent.1 == 0, "201 Created with no body, as shown")
            let sms = try #require(try await app.store.outboxMessages().last)
            #expect(sms.channel == "sms" && sms.recipient == "+439999999999" && sms.template == "otp")
            let otp = try await SignupFixture.code(app)
            #expect(otp.count == 6 && otp.allSatisfy(\.isNumber))

            let verified = try await client.call(.patch, "/identity/verification/flow/phone", headers: SignupFixture.json, raw: """
                {
                "phoneType": "PRIMARY",
                "flowId": "\(id)",
                "otp": "\(otp)",
                "flowType": "REGISTRATION"
                }
                """)
            #expect(verified.status == .ok)
            #expect(verified.json as NSDictionary == ["message": "Phone verified successfully"] as NSDictionary)

            let registered = try await client.call(.post, "/a/self-service/registration?flow=\(id)", headers: SignupFixture.json, raw: """
                {
                "method": "password",
                "traits": {
                "name": {
                "first": "Pay User",
                "last": "Test"
                },
                "phone": "+439999999999"
                },
                "password": "000000"
                }
                """)
            #expect(registered.status == .ok, "\(registered.json)")
            let registration = try #require(registered.decoded(Components.Schemas.SuccessfulNativeRegistration.self))
            let token = registration.sessionToken
            let session = registration.session
            let identityID = session.identity.id
            #expect(registration.identity.id == identityID)
            #expect(session.identity.traits.name?.first == "Pay User")
            #expect(session.identity.traits.phone == "+439999999999")
            #expect(session.active)

            // The session is limited until the device key is registered, then bound to that key.
            let early = try await client.call(.get, "/v1/profile", headers: appHeaders(session: token))
            #expect(early.status == .unauthorized && early.failure?.id == "device_key_required", "\(early.json)")
            let device = TestDeviceKey()
            let keyPath = "/identity/pki/client/certificates"
            let keyed = try await client.call(.put, keyPath, headers: appHeaders(session: token).with(proof: device.proof("PUT", keyPath)),
                                              body: ["publicKey": device.key.publicKey.pemRepresentation])
            #expect(keyed.status == .ok && keyed.login?.tokenType == .dPoP, "\(keyed.json)")
            let customer = try await client.dpopCall(device, .get, "/v1/profile", token: token)
            #expect(customer.status == .ok)
            #expect(customer.decoded(Customer.self)?.firstName == "Pay User" && customer.decoded(Customer.self)?.lastName == "Test")
            #expect(customer.decoded(Customer.self)?.username == "+439999999999")
            #expect(customer.decoded(Customer.self)?.customerIdentification == identityID)
            let whoamiHeaders: HTTPFields = [HTTPField.Name("X-Session-Token")!: token]
            let whoami = try await client.call(.get, "/a/sessions/whoami",
                                               headers: whoamiHeaders.with(proof: device.proof("GET", "/a/sessions/whoami", token: token)))
            #expect(whoami.decoded(Components.Schemas.KratosSession.self)?.identity.id == identityID)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func theDeviceCertificateChainsToTheServersCA(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            SignupFixture.configure(&$0)
            $0.publicURL = TestDeviceKey.base
        }) { app, client in
            let flow = try await SignupFixture.verifiedFlow(app, client)
            let registered = try await SignupFixture.finish(client, flow: flow, headers: appHeaders(device: "phone-1"))
            let token = try #require(registered.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken)
            let device = TestDeviceKey()
            let key = device.key
            let body = ["publicKey": key.publicKey.derRepresentation.base64EncodedString()]
            let path = "/identity/pki/client/certificates"

            let anonymous = try await client.call(.put, path, headers: SignupFixture.json, body: body)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.failure?.id == "session_inactive" && anonymous.failure?.code == 401)
            let badKey = try await client.call(.put, path, headers: appHeaders(device: "phone-1", session: token)
                                                   .with(proof: device.proof("PUT", path)),
                                               body: ["publicKey": "bm90IGEga2V5"])
            #expect(badKey.status == .badRequest)

            let issued = try await client.call(.put, path, headers: appHeaders(device: "phone-1", session: token)
                                                   .with(proof: device.proof("PUT", path)),
                                               body: body)
            #expect(issued.status == .ok, "\(issued.json)")
            #expect(issued.decoded(Components.Schemas.DeviceCertificate.self)?.expiresAt != nil)
            let certificate = try Certificate(pemEncoded: try #require(issued.decoded(Components.Schemas.DeviceCertificate.self)?.certificate))
            let authority = try Certificate(pemEncoded: try #require(issued.decoded(Components.Schemas.DeviceCertificate.self)?.caCertificate))
            #expect(authority == app.certificateAuthority.certificate)
            #expect(certificate.issuer == authority.subject)
            #expect(authority.publicKey.isValidSignature(certificate.signature, for: certificate))
            #expect(certificate.publicKey == Certificate.PublicKey(key.publicKey))
            #expect(try certificate.extensions.extendedKeyUsage?.contains(.clientAuth) == true)
            #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
            let user = try #require(try await app.store.user(issuer: "default", phoneNormalized: SignupFixture.phone))
            #expect(certificate.subject.description.contains(user.id))
            #expect(try await app.store.deviceCertificates(userID: user.id, deviceID: "jkt:" + device.thumbprint).count == 1)
            // The session is bound now: Kratos's header carries it with a proof that hashes it.
            var kratosHeaders = SignupFixture.json
            kratosHeaders[HTTPField.Name("X-Session-Token")!] = token
            let bySessionToken = try await client.call(.put, path, headers: kratosHeaders.with(proof: device.proof("PUT", path, token: token)),
                                                       body: body)
            #expect(bySessionToken.status == .ok, "Kratos's routes read X-Session-Token, as the contract declares")

            let forged = try CertificateAuthority.generate(issuerName: "Someone else")
            #expect(!forged.certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        }
    }

    @Test func aKratosClientLogsInAndOutByPhone() async throws {
        try await withServer(configure: SignupFixture.configure) { app, client in
            let flow = try await SignupFixture.verifiedFlow(app, client)
            #expect(try await SignupFixture.finish(client, flow: flow).status == .ok)

            let login = try await client.call(.get, "/a/self-service/login/api", headers: [:])
            let loginID = try #require(login.decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            let wrong = try await client.call(.post, "/a/self-service/login?flow=\(loginID)", headers: SignupFixture.json,
                                              body: ["method": "password", "identifier": SignupFixture.phone, "password": "111111"])
            #expect(wrong.status == .badRequest)
            #expect(SignupFixture.messageIDs(wrong) == [4_000_006])
            let right = try await client.call(.post, "/a/self-service/login?flow=\(loginID)", headers: SignupFixture.json,
                                              body: ["method": "password", "identifier": SignupFixture.phone, "password": "000000"])
            #expect(right.status == .ok, "\(right.json)")
            let token = try #require(right.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken)
            let again = try await client.call(.post, "/a/self-service/login?flow=\(loginID)", headers: SignupFixture.json,
                                              body: ["method": "password", "identifier": SignupFixture.phone, "password": "000000"])
            #expect(again.status == .gone, "a completed login flow is used up")

            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            #expect(try await client.call(.get, "/a/sessions/whoami", headers: bearer).status == .ok)
            let logout = try await client.call(.delete, "/a/self-service/logout/api", headers: SignupFixture.json,
                                               body: ["session_token": token])
            #expect(logout.status == .noContent)
            let after = try await client.call(.get, "/a/sessions/whoami", headers: bearer)
            #expect(after.status == .unauthorized && after.failure?.id == "session_inactive")
            #expect(try await client.call(.delete, "/a/self-service/logout/api", headers: SignupFixture.json,
                                          body: ["session_token": token]).status == .noContent, "already revoked: still 204")
            #expect(try await client.call(.delete, "/a/self-service/logout/api", headers: SignupFixture.json,
                                          body: ["session_token": "unknown"]).status == .forbidden)
        }
    }

    @Test func kratosLoginByEmailKeepsTheWalletsRules() async throws {
        try await withServer { app, client in
            let nonce = try await AuthFixture.register(client)
            func login(device: String) async throws -> JSONAnswer {
                let flow = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:]).decoded(Components.Schemas.SelfServiceFlow.self)?.id)
                return try await client.call(.post, "/a/self-service/login?flow=\(flow)", headers: appHeaders(device: device),
                                             body: ["method": "password", "identifier": "ada@example.com",
                                                    "password": AuthFixture.password])
            }
            #expect(SignupFixture.messageIDs(try await login(device: "device-1")) == [4_000_010], "email not verified")
            try await AuthFixture.verifyEmail(app, client)
            let early = try await login(device: "device-1")
            #expect(early.status == .badRequest, "the app instance is not verified yet (511)")
            #expect(early.decoded(Components.Schemas.SelfServiceFlow.self)?.ui.messages.first?.text
                    == "Application instance verification is not complete.")
            _ = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            let unlinked = try await login(device: "device-2")
            #expect(unlinked.status == .badRequest && SignupFixture.messageIDs(unlinked) == [4_000_001],
                    "a wallet with MFA answers may not link a device through a Kratos login")
            let linked = try await login(device: "device-1")
            #expect(linked.status == .ok && linked.decoded(Components.Schemas.SuccessfulNativeLogin.self) != nil, "\(linked.json)")
        }
    }
}
