import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct ProfileTests {
    static func change(_ client: any TestClientProtocol, _ session: String?, old: String = AuthFixture.password,
                       new: String = "brand-new-pass-7", confirm: String? = nil) async throws -> JSONAnswer {
        try await client.call(.put, "/v1/profile/password", headers: appHeaders(session: session),
                              body: ["oldPassword": old, "newPassword": new, "confirmNewPassword": confirm ?? new])
    }

    @Test func customerRecord() async throws {
        try await withServer { app, client in
            #expect(try await client.call(.get, "/v1/profile").errorCode == 403)
            let session = try await AuthFixture.enrolledSession(app, client)
            let customer = try await client.call(.get, "/v1/profile", headers: appHeaders(session: session))
            #expect(customer.status == .ok)
            #expect(customer.decoded(Customer.self)?.username == "ada@example.com")
            #expect(customer.decoded(Customer.self)?.firstName == "Ada")
            #expect(customer.decoded(Customer.self)?.active == true)
            #expect(customer.decoded(Customer.self).map { $0.customerUri.hasSuffix($0.customerIdentification) } == true)
            #expect(customer.decoded(Customer.self)?.contactInformation.email == "ada@example.com")
            #expect(customer.decoded(Customer.self)?.lastModifiedDate != nil)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func updatePasswordCodesAndRevocation(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.issuer.lockout.walletThreshold = 3 }) { app, client in
            #expect(try await Self.change(client, nil).errorCode == 403)
            let session = try await AuthFixture.enrolledSession(app, client)
            let other = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let token = try #require(try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: session),
                body: ["username": "ada@example.com", "password": AuthFixture.password]).decoded(Components.Schemas.DeviceTokenResponse.self)?.deviceToken)

            let missing = try await client.call(.put, "/v1/profile/password", headers: appHeaders(session: session),
                                                body: ["newPassword": "x", "confirmNewPassword": "x"])
            #expect(missing.errorCode == 400)
            #expect(missing.errorField == "oldPassword")
            #expect(try await Self.change(client, session, confirm: "something-else").errorCode == 417)
            #expect(try await Self.change(client, session, new: "short").errorCode == 419)
            let wrong = try await Self.change(client, session, old: "not-my-password")
            #expect(wrong.errorCode == 416)
            #expect(wrong.status == .forbidden)
            #expect(try await Self.change(client, session, new: AuthFixture.password).errorCode == 406, "the current one is history")

            let changed = try await Self.change(client, session)
            #expect(changed.status == .ok)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .ok,
                    "the session that changed it stays")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: other)).status == .unauthorized)
            #expect(try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": token]).errorCode == 401)
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 401)
            #expect(try await AuthFixture.passwordLogin(client, password: "brand-new-pass-7").login?.sessionToken != nil)
            #expect(try await Self.change(client, session, old: "brand-new-pass-7", new: AuthFixture.password).errorCode == 406)

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setLocked(userID: user.id, locked: true)
            #expect(try await Self.change(client, session, old: "brand-new-pass-7", new: "third-pass-99").errorCode == 424)
            try await app.store.setLocked(userID: user.id, locked: false)
            var codes: [Int] = []
            for _ in 0..<3 { codes.append(try await Self.change(client, session, old: "wrong-current-1").errorCode ?? 0) }
            #expect(codes == [416, 416, 421])
        }
    }

    @Test func passwordHistoryKeepsTheIssuersNumber() async throws {
        try await withServer(configure: { $0.issuer.passwordHistory = 2 }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await Self.change(client, session, new: "second-pass-22").status == .ok)
            #expect(try await Self.change(client, session, old: "second-pass-22", new: AuthFixture.password).errorCode == 406)
            #expect(try await Self.change(client, session, old: "second-pass-22", new: "third-pass-333").status == .ok)
            #expect(try await Self.change(client, session, old: "third-pass-333", new: AuthFixture.password).status == .ok,
                    "two back is outside a history of 2")
        }
    }

    @Test func updatePasscode() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            func change(_ old: String, _ new: String, _ confirm: String? = nil) async throws -> JSONAnswer {
                try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: session),
                                      body: ["oldPasscode": old, "newPasscode": new, "confirmNewPasscode": confirm ?? new])
            }
            #expect(try await change(AuthFixture.pin, "271828", "271829").errorCode == 417)
            #expect(try await change(AuthFixture.pin, "111111").errorCode == 420)
            #expect(try await change("000000", "271828").errorCode == 416)
            #expect(try await change(AuthFixture.pin, "271828").status == .ok)
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": "271828"]).login?.sessionToken != nil)
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin]).errorCode == 401)
            #expect(try await client.call(.put, "/v1/profile/passcode", body: ["oldPasscode": "1", "newPasscode": "2",
                                                                               "confirmNewPasscode": "2"]).errorCode == 403)
        }
    }

    @Test func updateMFAAnswersReplacesThemAll() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            func update(_ answers: [String: String]) async throws -> JSONAnswer {
                try await client.call(.put, "/v1/profile/mfa-answers", headers: appHeaders(session: session), body: ["mfaAnswers": answers])
            }
            #expect(try await update(["What was your first job?": "Clerk"]).errorField == "mfaAnswers")
            #expect(try await update(["Q?": "a", "R?": "b", "S?": "c"]).errorCode == 400)
            #expect(try await update(["What was your first job?": "Clerk", "What is your favorite book?": "Dune",
                                      "What was your childhood nickname?": " "]).errorCode == 400)
            let new = ["What was your first job?": "Clerk", "What is your favorite book?": "Dune",
                       "What was your childhood nickname?": "Ace"]
            #expect(try await update(new).status == .ok)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(Set(try await app.store.mfaAnswers(userID: user.id).map(\.question)) == Set(new.keys))
            let prompt = try await LoginTests.prompt(client, device: "device-2")
            let answer = try #require(new[prompt.question])
            let linked = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                               body: ["challengeToken": prompt.challenge, "mfaSecretAnswer": answer.lowercased()])
            #expect(linked.login?.sessionToken != nil)
        }
    }

    @Test func changeExpiredPassword() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: { $0.issuer.passwordExpiryDays = 30 }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            clock.advance(31 * 86_400)
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 508)
            func change(_ email: String, _ expired: String, _ new: String) async throws -> JSONAnswer {
                try await client.call(.post, "/v1/enrollment/expired-password",
                                      body: ["email": email, "expiredPassword": expired, "newPassword": new, "confirmNewPassword": new])
            }
            #expect(try await change("nobody@example.com", AuthFixture.password, "fresh-pass-42").errorCode == 416)
            #expect(try await change("ada@example.com", "wrong-one-1", "fresh-pass-42").errorCode == 416)
            #expect(try await change("ada@example.com", AuthFixture.password, AuthFixture.password).errorCode == 406)
            #expect(try await change("ada@example.com", AuthFixture.password, "bad").errorCode == 419)
            #expect(try await change("ADA@example.com", AuthFixture.password, "fresh-pass-42").status == .ok)
            #expect(try await AuthFixture.passwordLogin(client, password: "fresh-pass-42").login?.sessionToken != nil)
        }
    }

    @Test func resendVerificationEmail() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.register(client)
            let known = try await client.call(.post, "/v1/enrollment/verification-email", body: ["email": "ADA@example.com"])
            let unknown = try await client.call(.post, "/v1/enrollment/verification-email", body: ["email": "nobody@example.com"])
            #expect(known.status == .ok)
            #expect(unknown.status == .ok)
            #expect(known.decoded(Components.Schemas.ResetResponse.self)?.message.replacingOccurrences(of: "ADA@example.com", with: "x")
                    == unknown.decoded(Components.Schemas.ResetResponse.self)?.message.replacingOccurrences(of: "nobody@example.com", with: "x"))
            #expect(try await app.store.outboxMessages().filter { $0.template == "email_verification" }.count == 2)
            try await AuthFixture.verifyEmail(app, client)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.emailVerified == true)
            _ = try await client.call(.post, "/v1/enrollment/verification-email", body: ["email": "ada@example.com"])
            #expect(try await app.store.outboxMessages().count == 2, "a verified address gets no new link")
            #expect(try await client.call(.post, "/v1/enrollment/verification-email", body: ["email": "nope"]).errorField == "email")
        }
    }
}
