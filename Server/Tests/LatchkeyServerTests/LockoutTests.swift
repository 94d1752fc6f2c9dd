import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct LockoutTests {
    @Test(arguments: TestEnvironment.engines)
    func parallelWrongPasswordsCheckAtMostTheThreshold(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)").errorCode ?? 0
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.failedAttempts == 5, "exactly the threshold was reserved, so at most 5 hashes were checked")
            #expect(user.status == .deactivated)
            #expect(codes.filter { $0 == 401 }.count <= 4)
            #expect(codes.filter { $0 == 421 || $0 == 429 }.count >= 12, "refused without a check: \(codes)")
            #expect(Set(codes).isSubset(of: [401, 421, 429]))
            let right = try await AuthFixture.passwordLogin(client)
            #expect(right.errorCode == 421, "even the right password")
            #expect(Int(right.status.code) == 423)
            try await app.store.setUserStatus(userID: user.id, status: .active, now: Date())
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func twoServersOnOneDatabaseShareTheLimit(engine: String) async throws {
        let database = try await TestEnvironment.freshDatabase(engine)
        let second = try await TestEnvironment.application(try TestEnvironment.configuration(database: database))
        try await withServer(configure: { $0.database = database }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            try await second.application.test(.router) { otherClient in
                let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<16 {
                        let target = index.isMultiple(of: 2) ? client : otherClient
                        group.addTask {
                            try await AuthFixture.passwordLogin(target, password: "wrong-password-\(index)").errorCode ?? 0
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(codes.filter { $0 == 401 }.count <= 4)
                #expect(try await AuthFixture.passwordLogin(otherClient).errorCode == 421)
            }
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.failedAttempts == 5)
        }
        try await second.store.close()
    }

    @Test(arguments: TestEnvironment.engines)
    func concurrentRightAndWrongLoginsNeverFail(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            $0.issuer.lockout.walletThreshold = 1000
            $0.issuer.lockout.deviceThreshold = 1000
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        let pin = index.isMultiple(of: 2) ? AuthFixture.pin : "271828"
                        return Int(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": pin]).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(codes).isSubset(of: [200, 401]), "\(codes)")
            #expect(codes.filter { $0 == 200 }.count == 12)
        }
    }

    @Test func successResetsTheConsecutiveCount() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            for round in 0..<3 {
                for _ in 0..<4 { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(round)") }
                #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
            }
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.failedAttempts == 0)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func pinLoginAndDeviceLockout(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            $0.issuer.lockout.walletThreshold = 50
            $0.issuer.lockout.deviceThreshold = 3
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let unknown = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(device: "stranger"),
                                                body: ["pin": AuthFixture.pin])
            #expect(unknown.errorCode == 401)
            let ok = try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin])
            #expect(ok.login?.sessionToken != nil)
            #expect(ok.login?.additionalAttributes?.additionalProperties["lastLogin"] != nil)
            var codes: [Int] = []
            for _ in 0..<4 { codes.append(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": "271828"]).errorCode ?? 0) }
            #expect(codes == [401, 401, 423, 423])
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin]).errorCode == 423)
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 423)
            #expect(try await AuthFixture.passwordLogin(client, device: "device-2").login?.code == 412,
                    "other devices are not affected")
        }
    }

    @Test func operatorStatesAnswer421And423And503() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .suspended, now: Date())
            let suspended = try await AuthFixture.passwordLogin(client)
            #expect(suspended.errorCode == 503)
            #expect(suspended.status == .forbidden)
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin]).errorCode == 503)
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .deactivated, now: Date())
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 423)
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .active, now: Date())
            try await app.store.setUserStatus(userID: user.id, status: .deactivated, now: Date())
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 421)
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin]).errorCode == 421)
            try await app.store.setUserStatus(userID: user.id, status: .active, now: Date())
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
            _ = session
        }
    }
}
