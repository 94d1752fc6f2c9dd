import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyServer
import Testing

@Suite struct RateLimitTests {
    @Test func requestsPerMinutePerIP() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 6_000_000))
        try await withServer(clock: clock, configure: {
            $0.rateLimits.enabled = true
            $0.rateLimits.requestsPerMinutePerIP = 5
        }) { _, client in
            for _ in 0..<5 { #expect(try await client.call(.get, "/v1/enrollment/mfa-questions").status == .ok) }
            let limited = try await client.call(.get, "/v1/enrollment/mfa-questions")
            #expect(limited.status == .tooManyRequests)
            #expect(limited.errorCode == 429)
            #expect(limited.headers[.retryAfter] == "60")
            #expect(try await client.call(.get, "/health", headers: [:]).status == .ok, "operational routes are not limited")
            clock.advance(60)
            #expect(try await client.call(.get, "/v1/enrollment/mfa-questions").status == .ok)
        }
    }

    @Test func forwardedForIsUsedOnlyWhenTrusted() async throws {
        for trusted in [false, true] {
            try await withServer(configure: {
                $0.rateLimits.enabled = true
                $0.rateLimits.requestsPerMinutePerIP = 1
                $0.http.trustForwardedFor = trusted
            }) { _, client in
                var first = appHeaders()
                first[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.1, 10.0.0.1"
                var second = appHeaders()
                second[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.2"
                #expect(try await client.call(.get, "/v1/enrollment/mfa-questions", headers: first).status == .ok)
                let other = try await client.call(.get, "/v1/enrollment/mfa-questions", headers: second)
                #expect(other.status == (trusted ? .ok : .tooManyRequests))
            }
        }
    }

    @Test func credentialAttemptsPerMinutePerAccount() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 7_000_000))
        try await withServer(clock: clock, configure: {
            $0.rateLimits.enabled = true
            $0.rateLimits.credentialAttemptsPerMinutePerAccount = 3
            $0.issuer.lockout.walletThreshold = 10
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            var answers: [JSONAnswer] = []
            for index in 0..<4 { answers.append(try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)")) }
            #expect(answers.map { $0.errorCode ?? 0 } == [401, 401, 401, 429])
            #expect(answers.last?.headers[.retryAfter] != nil, "the account limit says when to come back")
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.failedAttempts == 3,
                    "a limited request checks nothing and counts nothing")
            clock.advance(60)
            #expect(try await AuthFixture.passwordLogin(client).json["sessionToken"] is String)
        }
    }
}
