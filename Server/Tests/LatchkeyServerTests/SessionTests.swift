import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct SessionTests {
    @Test func sessionIdleAndAbsoluteLifetimes() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let described = try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session))
            #expect(described.status == .ok)
            #expect(described.decoded(Components.Schemas.SessionResponse.self)?.customerUri.hasPrefix("urn:latchkey:customer:") == true)
            #expect(described.decoded(Components.Schemas.SessionResponse.self)?.deviceId == "device-1")
            let created = try #require(described.json["createdAt"] as? String)
            #expect(created.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(created)")
            let parsed = try #require(ISO8601DateFormatter().date(from: created))
            #expect(abs(parsed.timeIntervalSince(clock.now)) < 1)
            clock.advance(1700)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .ok)
            clock.advance(1801)
            let idle = try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session))
            #expect(idle.status == .unauthorized)
            #expect(idle.errorCode == 403)

            let long = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            for _ in 0..<25 {
                clock.advance(1750)
                _ = try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: long))
            }
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: long)).status == .unauthorized,
                    "12 hours absolute")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func revocationByAnotherProcessIsSeenWithinASecond(engine: String) async throws {
        let clock = TestClock(start: Date())
        let database = try await TestEnvironment.freshDatabase(engine)
        try await withServer(clock: clock, configure: { $0.database = database }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .ok)
            // Another process (a replica, `latchkey users`) with its own store on the same database.
            try await StoreFactory.withStore(database, logger: TestEnvironment.logger) { other in
                let user = try #require(try await other.user(issuer: "default", emailNormalized: "ada@example.com"))
                try await other.revokeSessions(userID: user.id, except: nil, deviceID: nil, now: clock.now)
            }
            clock.advance(1.1)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized)
        }
    }

    @Test func logoutRevokesTheSession() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.post, "/v1/auth/logout", headers: appHeaders(session: session)).status == .noContent)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized)
            let again = try await client.call(.post, "/v1/auth/logout", headers: appHeaders(session: session))
            #expect(again.errorCode == 403)
            #expect(try await client.call(.post, "/v1/auth/logout").errorCode == 403)
        }
    }

    @Test func lockoutRevokesTheWalletSessions() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            for index in 0..<5 { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)") }
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized)
        }
    }

    @Test func noSessionNonceOrTokenInPlainForm() async throws {
        let database = try await TestEnvironment.freshDatabase("sqlite")
        try await withServer(configure: { $0.database = database }) { app, client in
            let nonce = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)
            let login = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            let nonceSession = try #require(login.login?.sessionToken)
            // A device token needs a login that checked a knowledge factor: the PIN.
            let pinLogin = try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin])
            let session = try #require(pinLogin.login?.sessionToken)
            let device = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: session),
                                               body: ["username": "ada@example.com", "password": AuthFixture.password])
            let deviceToken = try #require(device.decoded(Components.Schemas.DeviceTokenResponse.self)?.deviceToken)
            let prompt = try await AuthFixture.passwordLogin(client, device: "device-9")
            let challenge = try #require(prompt.login?.mfaToken?.challengeToken)
            let path = String(database.dropFirst("sqlite:".count))
            var bytes = Data()
            for suffix in ["", "-wal"] { bytes += FileManager.default.contents(atPath: path + suffix) ?? Data() }
            for secret in [nonce, nonceSession, session, deviceToken, challenge] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil)
            }
            #expect(bytes.range(of: Data(SecureRandom.digest(session).utf8)) != nil, "the digest is what is stored")
        }
    }
}
