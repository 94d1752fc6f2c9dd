import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct LoginTests {
    @Test(arguments: TestEnvironment.engines)
    func nonceLoginVerifiesTheAppInstanceOnce(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let nonce = try await AuthFixture.register(client)
            let early = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            #expect(early.errorCode == 418, "email not verified yet: \(early.json)")
            #expect(early.status == .forbidden)
            try await AuthFixture.verifyEmail(app, client)
            let login = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            #expect(login.status == .ok)
            #expect((login.login?.sessionToken)?.count == 43)
            #expect((login.login?.customerUri)?.hasPrefix("urn:latchkey:customer:") == true)
            let again = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            #expect(again.status == .unauthorized)
            #expect(again.errorCode == 401)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.appInstanceVerified)
            #expect(try await app.store.devices(userID: user.id).map(\.deviceID) == ["device-1"])
        }
    }

    @Test func nonceFromAnotherDevicePromptsAndExpires() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock) { app, client in
            let nonce = try await AuthFixture.register(client, email: "ada@example.com")
            try await AuthFixture.verifyEmail(app, client)
            let other = try await client.call(.post, "/v1/auth/login/nonce", headers: appHeaders(device: "device-2"),
                                              body: ["nonce": nonce])
            #expect(other.status == .ok)
            #expect(other.login?.code == 412)
            #expect(other.login?.mfaToken?.challengeToken != nil)
            let late = try await AuthFixture.register(client, email: "late@example.com")
            try await AuthFixture.verifyEmail(app, client, email: "late@example.com")
            clock.advance(601)
            let expired = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": late])
            #expect(expired.errorCode == 401)
            #expect(try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": "forged"]).errorCode == 401)
            let locked = try await AuthFixture.register(client, email: "locked@example.com")
            try await AuthFixture.verifyEmail(app, client, email: "locked@example.com")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "locked@example.com"))
            try await app.store.setUserStatus(userID: user.id, status: .deactivated, now: Date())
            #expect(try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": locked]).errorCode == 421)
        }
    }

    @Test func parallelReuseOfOneNonceSucceedsOnce() async throws {
        try await withServer { app, client in
            let nonce = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask { Int(try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce]).status.code) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.filter { $0 == 200 }.count == 1)
            #expect(codes.filter { $0 == 401 }.count == 9)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func parallelReuseOfOneChallengeSucceedsOnce(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let prompt = try await Self.prompt(client, device: "device-2")
            let answers = ["What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                           "What is your mother's maiden name?": "Byron"]
            let answer = try #require(answers[prompt.question])
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        Int(try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                                  body: ["challengeToken": prompt.challenge, "mfaSecretAnswer": answer]).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.filter { $0 == 200 }.count == 1)
            #expect(codes.filter { $0 == 401 }.count == 9)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func passwordLoginAndMFALinking(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            #expect(try await AuthFixture.passwordLogin(client, email: "nobody@example.com").errorCode == 401)
            let wrong = try await AuthFixture.passwordLogin(client, password: "wrong-password-1")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == 401)
            let ok = try await AuthFixture.passwordLogin(client, email: "ADA@example.COM")
            #expect(ok.status == .ok)
            let attributes = try #require(ok.login?.additionalAttributes?.additionalProperties)
            #expect(attributes["lastLogin"] != nil)
            #expect(attributes["lastPasswordUpdate"] != nil)

            let prompt = try await AuthFixture.passwordLogin(client, device: "device-2")
            #expect(prompt.login?.code == 412)
            #expect(prompt.login?.sessionToken == nil)
            let token = try #require(prompt.login?.mfaToken)
            let question = try #require(token.mfaSecretQuestion)
            let answers = ["What was the name of your first pet?": "REX", "In what city were you born?": " london ",
                           "What is your mother's maiden name?": "byron"]
            let right = try #require(answers[question])
            let challenge = token.challengeToken
            let bad = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                            body: ["challengeToken": challenge, "mfaSecretAnswer": "nope"])
            #expect(bad.errorCode == 401)
            let reused = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                               body: ["challengeToken": challenge, "mfaSecretAnswer": right])
            #expect(reused.errorCode == 401, "a challenge is single use")

            let second = try await Self.prompt(client, device: "device-2")
            let secondAnswer = try #require(answers[second.question])
            let foreign = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-3"),
                                                body: ["challengeToken": second.challenge, "mfaSecretAnswer": secondAnswer])
            #expect(foreign.errorCode == 401, "the challenge belongs to device-2")
            let third = try await Self.prompt(client, device: "device-2")
            let thirdAnswer = try #require(answers[third.question])
            let linked = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                               body: ["challengeToken": third.challenge, "mfaSecretAnswer": thirdAnswer])
            #expect(linked.status == .ok)
            #expect(linked.login?.sessionToken != nil)
            #expect(try await AuthFixture.passwordLogin(client, device: "device-2").login?.sessionToken != nil)
        }
    }

    static func prompt(_ client: any TestClientProtocol, device: String) async throws -> (question: String, challenge: String) {
        let answer = try await AuthFixture.passwordLogin(client, device: device)
        let token = try #require(answer.login?.mfaToken)
        return (try #require(token.mfaSecretQuestion), token.challengeToken)
    }

    @Test func verificationCodes418And511And508() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: { $0.issuer.passwordExpiryDays = 30 }) { app, client in
            _ = try await AuthFixture.register(client)
            let unverified = try await AuthFixture.passwordLogin(client)
            #expect(unverified.errorCode == 418)
            try await AuthFixture.verifyEmail(app, client)
            let noNonce = try await AuthFixture.passwordLogin(client)
            #expect(noNonce.errorCode == 511)
            #expect(noNonce.status == .forbidden)
            _ = try await AuthFixture.enrolledSession(app, client, email: "grace@example.com")
            let fresh = try await AuthFixture.passwordLogin(client, email: "grace@example.com")
            #expect(fresh.login?.additionalAttributes?.additionalProperties["passwordExpiresAt"] != nil)
            clock.advance(31 * 86_400)
            let expired = try await AuthFixture.passwordLogin(client, email: "grace@example.com")
            #expect(expired.errorCode == 508)
            #expect(try await AuthFixture.passwordLogin(client, email: "grace@example.com", password: "wrong-one-123").errorCode == 401)
        }
    }

    @Test func loginNeedsADeviceAndFields() async throws {
        try await withServer { _, client in
            let headers = appHeaders().filter { $0.name.rawName != "X-Device-ID" }
            let noDevice = try await client.call(.post, "/v1/auth/login/password", headers: HTTPFields(headers),
                                                 body: ["username": "a@b.co", "password": "x"])
            #expect(noDevice.errorField == "X-Device-ID")
            #expect(try await client.call(.post, "/v1/auth/login/password", body: ["username": "a@b.co"]).errorField == "password")
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": ""]).errorField == "pin")
        }
    }
}

import HTTPTypes
