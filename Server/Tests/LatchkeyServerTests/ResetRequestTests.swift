import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// `resetForgottenPassword` and `resetForgottenPasscode` over HTTP: every documented code.
@Suite struct ResetRequestTests {
    @Test(arguments: ["password", "passcode"])
    func documentedCodes(kind: String) async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)   // a pending registration is no wallet to reset
            let missing = try await client.call(.post, "/v1/enrollment/\(kind)-reset", body: [String: String]())
            #expect(missing.status == .badRequest)
            let malformed = try await client.call(.post, "/v1/enrollment/\(kind)-reset", body: ["email": "not-an-address"])
            #expect(malformed.status == .badRequest)
            #expect(malformed.errorCode == 400 && malformed.errorField == "email")

            let unknown = try await client.call(.post, "/v1/enrollment/\(kind)-reset", body: ["email": "nobody@example.com"])
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == 410 && unknown.failure?.id == "unknown_email")

            let known = try await client.call(.post, "/v1/enrollment/\(kind)-reset", body: ["email": "ADA@example.com"])
            #expect(known.status == .ok)
            #expect(known.decoded(Components.Schemas.ResetResponse.self) != nil)
            #expect(known.json.keys.contains("mfaQuestions") && known.json["mfaQuestions"] is NSNull, "null, as the spec says")
            let sent = try await app.store.outboxMessages().filter { $0.template == "\(kind)_reset" }
            #expect(sent.map(\.recipient) == ["ada@example.com"])
            let body = try #require(app.cipher.open(sent[0]))
            #expect(body.body.contains("30 minutes"))
            #expect(try #require(body.data["link"]).contains("/reset?token="))
        }
    }

    @Test func uniformAnswersHideWhetherAnAddressIsKnown() async throws {
        try await withServer(configure: { $0.issuer.reset.uniformAnswers = true }) { app, client in
            _ = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)   // a pending registration is no wallet to reset
            let unknown = try await client.call(.post, "/v1/enrollment/password-reset", body: ["email": "nobody@example.com"])
            let known = try await client.call(.post, "/v1/enrollment/password-reset", body: ["email": "ada@example.com"])
            #expect(unknown.status == .ok && known.status == .ok)
            #expect(unknown.decoded(Components.Schemas.ResetResponse.self)?.message.replacingOccurrences(of: "nobody", with: "ada") == known.decoded(Components.Schemas.ResetResponse.self)?.message)
            #expect(try await app.store.outboxMessages().filter { $0.template == "password_reset" }.map(\.recipient) == ["ada@example.com"])
        }
    }

    @Test func theLinkExpiresAfterTheIssuersLifetime() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        try await withServer(clock: clock, configure: { $0.issuer.reset.linkLifetimeMinutes = 10 }) { app, client in
            _ = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)   // a pending registration is no wallet to reset
            let path = try await ResetFixture.requestLink(app, client)
            let browser = PortalBrowser(client)
            #expect(try await browser.get(path).status == .ok)
            clock.advance(10 * 60 + 1)
            let expired = try await browser.get(path)
            #expect(expired.status == .gone)
            #expect(expired.text(id: "title") == "This link does not work")
            #expect(!expired.html.contains("<form"), "an explanation, not a form")
        }
    }

    @Test func resetRequestsAreThrottledPerAccount() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 6_000_000))
        try await withServer(clock: clock, configure: {
            $0.rateLimits.enabled = true
            $0.rateLimits.requestsPerMinutePerIP = 1000
            $0.rateLimits.credentialAttemptsPerMinutePerAccount = 2
        }) { app, client in
            _ = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)   // a pending registration is no wallet to reset
            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(try await client.call(.post, "/v1/enrollment/passcode-reset", body: ["email": "ada@example.com"]).status.code)
            }
            #expect(statuses == [200, 200, 429])
        }
    }
}
