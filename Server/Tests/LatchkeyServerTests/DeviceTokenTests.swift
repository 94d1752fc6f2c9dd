import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct DeviceTokenTests {
    @Test(arguments: TestEnvironment.engines)
    func generateLoginExpire(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let credentials = ["username": "ada@example.com", "password": AuthFixture.password]
            #expect(try await client.call(.post, "/v1/auth/device-token", body: credentials).errorCode == 403)
            let session = try await AuthFixture.enrolledSession(app, client)
            let wrong = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: session),
                                              body: ["username": "ada@example.com", "password": "wrong-password-1"])
            #expect(wrong.errorCode == 419)
            #expect(wrong.status == .unauthorized)
            let created = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: session), body: credentials)
            #expect(created.status == .created)
            let token = try #require(created.decoded(Components.Schemas.DeviceTokenResponse.self)?.deviceToken)
            #expect(created.decoded(Components.Schemas.DeviceTokenResponse.self)?.expiresAt != nil)

            let login = try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": token])
            #expect(login.login?.sessionToken != nil)
            let foreign = try await client.call(.post, "/v1/auth/login/device-token", headers: appHeaders(device: "device-2"),
                                                body: ["deviceToken": token])
            #expect(foreign.errorCode == 401)

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setUserStatus(userID: user.id, status: .deactivated, now: Date())
            #expect(try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": token]).errorCode == 412)
            try await app.store.setUserStatus(userID: user.id, status: .active, now: Date())
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .deactivated, now: Date())
            #expect(try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": token]).errorCode == 423)
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .active, now: Date())

            #expect(try await client.call(.delete, "/v1/auth/device-token", body: ["deviceToken": token]).status == .noContent)
            let twice = try await client.call(.delete, "/v1/auth/device-token", body: ["deviceToken": token])
            #expect(twice.errorCode == 403)
            #expect(try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": token]).errorCode == 401)
        }
    }

    @Test func expiredTokenAndIssuerSwitch() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: { $0.issuer.deviceAuthentication.lifetimeDays = 1 }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let created = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: session),
                                                body: ["username": "ada@example.com", "password": AuthFixture.password])
            let token = try #require(created.decoded(Components.Schemas.DeviceTokenResponse.self)?.deviceToken)
            clock.advance(86_401)
            #expect(try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": token]).errorCode == 401)
            #expect(try await client.call(.delete, "/v1/auth/device-token", body: ["deviceToken": token]).errorCode == 403)
        }
        try await withServer(configure: { $0.issuer.deviceAuthentication.enabled = false }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let off = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: session),
                                            body: ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(off.errorCode == 432)
            #expect(off.status == .forbidden)
        }
    }
}
