import Foundation
import LatchkeyAPI
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
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

    /// Attack: with the old `trustForwardedFor`, the leftmost `X-Forwarded-For` entry (written by
    /// the client) was the client, so 60 requests with 60 made-up addresses all passed a limit of
    /// 20 a minute. With `trustedProxies` the client is the rightmost entry that is not a trusted
    /// proxy; a peer that is not a trusted proxy, or an empty list, makes the header count for nothing.
    /// Attack: two replicas on one PostgreSQL let 40 of 60 requests through a limit of 20 a minute
    /// per IP, each counting on its own. Counted in the database (the default on PostgreSQL), the
    /// pair lets exactly 20 through, alternating between them.
    @Test(arguments: TestEnvironment.engines)
    func replicasShareTheLimits(engine: String) async throws {
        var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase(engine))
        configuration.rateLimits.enabled = true
        configuration.rateLimits.requestsPerMinutePerIP = 20
        if engine == "sqlite" { configuration.rateLimits.counting = .database }
        let first = try await TestEnvironment.application(configuration)
        let second = try await TestEnvironment.application(configuration)
        try await first.application.test(.router) { one in
            try await second.application.test(.router) { other in
                var statuses: [Int] = []
                for index in 0..<60 {
                    let client: any TestClientProtocol = index.isMultiple(of: 2) ? one : other
                    statuses.append(Int(try await client.call(.get, "/v1/enrollment/mfa-questions").status.code))
                }
                #expect(statuses.filter { $0 == 200 }.count == 20, "\(statuses)")
                #expect(statuses.filter { $0 == 429 }.count == 40)
            }
        }
        try await first.store.close()
        try await second.store.close()
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() async throws {
        func run(_ proxies: [String], _ requests: [String?]) async throws -> [HTTPResponse.Status] {
            try await withServer(live: true, configure: {
                $0.rateLimits.enabled = true
                $0.rateLimits.requestsPerMinutePerIP = 1
                $0.http.trustedProxies = proxies
            }) { _, client in
                var statuses: [HTTPResponse.Status] = []
                for forwarded in requests {
                    var headers = appHeaders()
                    if let forwarded { headers[HTTPField.Name("X-Forwarded-For")!] = forwarded }
                    statuses.append(try await client.call(.get, "/v1/enrollment/mfa-questions", headers: headers).status)
                }
                return statuses
            }
        }
        // The test client is 127.0.0.1, a trusted proxy here; 10.0.0.0/8 is the proxies' network.
        let proxies = ["127.0.0.0/8", "10.0.0.0/8"]
        #expect(try await run(proxies, ["203.0.113.1, 198.51.100.7", "203.0.113.2, 198.51.100.7"]) == [.ok, .tooManyRequests],
                "made-up entries left of the real client change nothing")
        #expect(try await run(proxies, ["198.51.100.9, 10.0.0.5", "198.51.100.9", "198.51.100.10"]) == [.ok, .tooManyRequests, .ok],
                "trusted hops are skipped from the right; another client has its own count")
        #expect(try await run([], ["198.51.100.9", "198.51.100.10"]) == [.ok, .tooManyRequests], "no trusted proxies: the peer")
        #expect(try await run(["10.0.0.0/8"], ["198.51.100.9", "198.51.100.10"]) == [.ok, .tooManyRequests],
                "a peer that is not a trusted proxy is the client, whatever it writes")
    }

    @Test func trustedProxiesParseCIDRsOfBothFamilies() throws {
        let proxies = try #require(TrustedProxies(["192.0.2.0/24", "2001:db8::/32", "10.1.2.3"]))
        #expect(proxies.client(peer: "192.0.2.10", forwardedFor: ["2001:db9::1, 2001:db8::5", "10.1.2.3"]) == "2001:db9::1")
        #expect(proxies.client(peer: "192.0.3.1", forwardedFor: ["198.51.100.1"]) == "192.0.3.1")
        #expect(proxies.client(peer: "192.0.2.1", forwardedFor: ["not-an-ip, 192.0.2.7"]) == "invalid")
        #expect(proxies.client(peer: "192.0.2.1", forwardedFor: []) == "192.0.2.1")
        #expect(TrustedProxies(["192.0.2.0/33"]) == nil)
        #expect(TrustedProxies(["example.com"]) == nil)
    }

    /// A server listening on `::` sees an IPv4 peer as an IPv4-mapped IPv6 address
    /// (`::ffff:192.0.2.10`), and a proxy may write one in `X-Forwarded-For`: both are the IPv4
    /// address, trusted by an IPv4 block, and an IPv4 block may be written in the mapped form.
    @Test func anIPv4MappedAddressIsItsIPv4Address() throws {
        let proxies = try #require(TrustedProxies(["192.0.2.0/24", "10.1.2.3"]))
        #expect(proxies.client(peer: "::ffff:192.0.2.10", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        #expect(proxies.client(peer: "192.0.2.10", forwardedFor: ["198.51.100.1, ::ffff:10.1.2.3"]) == "198.51.100.1")
        #expect(proxies.client(peer: "::ffff:198.51.100.1", forwardedFor: ["203.0.113.9"]) == "::ffff:198.51.100.1")
        let mapped = try #require(TrustedProxies(["::ffff:10.0.0.0/104"]))
        #expect(mapped.trusts("10.200.0.1") && mapped.trusts("::ffff:10.200.0.1") && !mapped.trusts("11.0.0.1"))
        #expect(!proxies.trusts("::192.0.2.10") && !proxies.trusts("64:ff9b::192.0.2.10"), "only the ::ffff:0:0/96 mapping")
        // An IPv6 block holds the IPv4 addresses whose mapped form it holds, as it did the mapped peers.
        let everyIPv6 = try #require(TrustedProxies(["::/0"]))
        #expect(everyIPv6.trusts("::ffff:10.0.0.1") && everyIPv6.trusts("10.0.0.1") && everyIPv6.trusts("2001:db8::1"))
        let wide = try #require(TrustedProxies(["::ffff:0:0/80"]), "a block wider than the mapping is an IPv6 block")
        #expect(wide.trusts("10.0.0.1") && wide.trusts("::1:2:3") && !wide.trusts("2001:db8::1"))
        #expect(!TrustedProxies(["2001:db8::/32"])!.trusts("10.0.0.1"))
    }

    @Test func credentialAttemptsPerMinutePerAccount() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 7_000_000))
        try await withServer(clock: clock, configure: {
            $0.rateLimits.enabled = true
            $0.rateLimits.credentialAttemptsPerMinutePerAccount = 3
            $0.issuer.lockout.walletThreshold = 10
        }) { app, client in
            _ = try await AuthFixture.nonceSession(app, client)
            var answers: [JSONAnswer] = []
            for index in 0..<4 { answers.append(try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)")) }
            #expect(answers.map { $0.errorCode ?? 0 } == [401, 401, 401, 429])
            #expect(answers.last?.headers[.retryAfter] != nil, "the account limit says when to come back")
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.failedAttempts == 3,
                    "a limited request checks nothing and counts nothing")
            clock.advance(60)
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
        }
    }

    /// The in-memory limiter holds one minute of keys, at most `capacity`: past it a new key is
    /// refused for the rest of the minute (known keys go on), and the next minute starts empty.
    @Test func theLimiterIsBoundedPerMinute() {
        let clock = TestClock(start: Date(timeIntervalSince1970: 6_000_000))
        let limiter = RateLimiter(now: { clock.now })
        for index in 0..<RateLimiter.capacity { _ = limiter.allow("ip:\(index)", limit: 5) }
        #expect(!limiter.allow("ip:new", limit: 5), "a full minute takes no new key")
        #expect(limiter.allow("ip:7", limit: 5), "a known key keeps its count")
        clock.advance(60)
        #expect(limiter.allow("ip:new", limit: 5), "a new minute starts empty")
    }
}

