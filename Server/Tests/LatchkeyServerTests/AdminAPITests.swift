import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAdminAPI
import LatchkeyAdminClient
@testable import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing
import Yams

/// The admin API — operator keys at the edge, roles per operation, every call an event
/// naming the operator — on both engines.
@Suite struct AdminAPITests {
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.admin.enabled = true
        configuration.admin.onPublicPort = true
    }

    static func key(_ app: LatchkeyApplication, _ role: OperatorRole, clock: TestClock? = nil) async throws -> (OperatorKeyRecord, String) {
        let keys = OperatorKeys(store: app.store, now: { clock?.now ?? Date() })
        return try await keys.create(name: "\(role.rawValue)-desk", role: role)
    }

    static func admin(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    static func userID(_ app: LatchkeyApplication, _ email: String = "ada@example.com") async throws -> String {
        try #require(try await app.store.user(issuer: "default", emailNormalized: email)).id
    }

    /// Attack: a call without a usable key — none, a wrong one, a revoked or an expired one, a
    /// wallet session token — is refused with a Bearer challenge before anything is read.
    @Test(arguments: TestEnvironment.engines)
    func aCallWithoutAUsableKeyIsRefused(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: Self.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let (record, key) = try await Self.key(app, .admin, clock: clock)
            let (revoked, revokedKey) = try await Self.key(app, .admin, clock: clock)
            try await OperatorKeys(store: app.store, now: { clock.now }).revoke(id: revoked.id)
            let refusals: [HTTPFields] = [[:], Self.admin(key + "x"), Self.admin(revokedKey), Self.admin(session),
                                          [.authorization: "Basic \(key)"], Self.admin(record.digest)]
            for headers in refusals {
                let answer = try await client.call(.get, "/admin/v1/users", headers: headers)
                #expect(answer.status == .unauthorized && answer.failure?.id == "invalid_operator_key", "\(headers)")
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            #expect(try await client.call(.get, "/admin/v1/users", headers: Self.admin(key)).status == .ok)
            clock.advance(TimeInterval(OperatorKeys.defaultDays) * 86_400)
            #expect(try await client.call(.get, "/admin/v1/users", headers: Self.admin(key)).status == .unauthorized, "expired")
        }
    }

    /// Attack: a viewer key cannot unlock, lock or end sessions (403), and the user is unchanged.
    @Test(arguments: TestEnvironment.engines)
    func aViewerReadsButCannotAct(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let user = try await Self.userID(app)
            let (_, viewer) = try await Self.key(app, .viewer)
            let (_, support) = try await Self.key(app, .support)
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/lock", headers: Self.admin(support)).status == .noContent)
            #expect(try await client.call(.get, "/admin/v1/users/\(user)", headers: Self.admin(viewer)).status == .ok)
            for (method, path) in [(HTTPRequest.Method.post, "unlock"), (.post, "lock"), (.delete, "sessions")] {
                let answer = try await client.call(method, "/admin/v1/users/\(user)/\(path)", headers: Self.admin(viewer))
                #expect(answer.status == .forbidden && answer.failure?.id == "operator_role_insufficient", "\(path)")
            }
            let stored = try #require(try await app.store.user(id: user))
            #expect(stored.locked && stored.status == .active, "still locked: the viewer's unlock changed nothing")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .ok)
            let refused = try await app.store.auditEvents(after: nil, since: nil, limit: 100)
                .filter { $0.details["refused"] == "viewer" && $0.outcome == .failure }
            #expect(refused.map { $0.details["command"] } == ["admin unlockUser", "admin lockUser", "admin endUserSessions"],
                    "each refusal is recorded, naming the key")
        }
    }

    /// The support desk's journey: a wallet locked out by wrong passwords is found by its email,
    /// shows why, is unlocked and logs in again; a stolen phone's sessions are ended.
    @Test(arguments: TestEnvironment.engines)
    func supportFindsALockedOutWalletSeesWhyAndUnlocksIt(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let earlier = try await AuthFixture.enrolledSession(app, client)
            let (record, support) = try await Self.key(app, .support)
            for index in 0..<5 { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)") }
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 421, "deactivated by five wrong passwords")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: earlier)).status == .unauthorized,
                    "the deactivation ended its sessions")

            let found = try await client.call(.get, "/admin/v1/users?email=ADA@example.com", headers: Self.admin(support))
            let users = try #require(found.userPage?.users, "\(found.json)")
            #expect(users.count == 1 && users[0].status == .deactivated)
            let user = users[0].id
            let admin = client.admin(support)
            let detail = try await admin.user(user)
            let blocks = detail.loginBlocks
            #expect(blocks.map(\.reason) == [.walletDeactivated], "\(blocks)")
            #expect(blocks[0].message.contains("5 consecutive failed logins"))
            #expect(detail.failedAttempts == 5)

            #expect(try await client.call(.post, "/admin/v1/users/\(user)/unlock", headers: Self.admin(support)).status == .noContent)
            #expect(try await app.store.auditEvents(userID: user, limit: 50)
                .contains { $0.type == .walletStatusChanged && $0.reason == "active" && $0.actor == .operator },
                    "the reactivation is a wallet.status event like any other")
            let session = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken, "the wallet logs in again")
            let after = try await admin.user(user)
            #expect(after.loginBlocks.isEmpty && after.failedAttempts == 0)

            #expect(!after.sessions.isEmpty && after.sessions.allSatisfy { $0.id.count == 16 })
            #expect(try await client.call(.delete, "/admin/v1/users/\(user)/sessions", headers: Self.admin(support)).status == .noContent)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized,
                    "the stolen phone's session is over")
            #expect(try await admin.user(user).sessions.isEmpty)

            // Every call is an event naming the key; the changes name the user.
            let events = try await app.store.auditEvents(userID: user, limit: 50).filter { $0.type == .operatorCommand }
            #expect(events.map { $0.details["command"] ?? "" }.filter { $0.hasPrefix("admin ") }
                == ["admin listUsers", "admin getUser", "admin unlockUser", "admin getUser", "admin endUserSessions", "admin getUser"],
                    "the lookup by email names the user it disclosed")
            #expect(events.allSatisfy { $0.details["operatorKey"] == record.id && $0.details["operator"] == "support-desk" })
            #expect(try await client.call(.get, "/admin/v1/users/nobody", headers: Self.admin(support)).failure?.id == "unknown_user")
        }
    }

    /// Pages of users, newest first, keep their place when users register in between; the
    /// lookups and the page parameters are checked.
    @Test(arguments: TestEnvironment.engines)
    func pagesAreStableUnderInserts(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let (_, viewer) = try await Self.key(app, .viewer)
            func add(_ index: Int) async throws {
                var user = StorageContractTests().user("user\(index)@example.com")
                user.createdAt = Date(timeIntervalSince1970: 1_000_000 + TimeInterval(index / 2))  // pairs share a second
                try await app.store.createUser(user, answers: [], tokens: [], messages: [])
            }
            for index in 0..<7 { try await add(index) }
            func page(_ query: String) async throws -> (emails: [String], token: String?, link: String?) {
                let answer = try await client.call(.get, "/admin/v1/users?\(query)", headers: Self.admin(viewer))
                #expect(answer.status == .ok, "\(answer.json)")
                let page = try #require(answer.userPage, "\(answer.json)")
                return (page.users.map(\.email), page.nextPageToken, answer.headers[HTTPField.Name("Link")!])
            }
            let first = try await page("pageSize=3")
            #expect(first.emails.count == 3 && first.emails[0] == "user6@example.com")
            let token = try #require(first.token)
            #expect(first.link == "</admin/v1/users?pageSize=3&pageToken=\(token)>; rel=\"next\"")
            try await add(8)
            let second = try await page("pageSize=3&pageToken=\(token)")
            #expect(Set(first.emails).isDisjoint(with: second.emails) && second.emails.count == 3, "\(first.emails) \(second.emails)")
            let third = try await page("pageSize=3&pageToken=\(try #require(second.token))")
            // Users of one second are ordered by id: the last page holds one of the first two.
            #expect(third.emails.count == 1 && third.emails[0].hasPrefix("user") && "01".contains(third.emails[0].dropFirst(4).prefix(1))
                    && third.token == nil && third.link == nil, "\(third.emails)")
            #expect(Set(first.emails + second.emails + third.emails).count == 7, "each user once, the newcomer on no page")
            #expect(try await page("userId=\(try await Self.userID(app, "user3@example.com"))").emails == ["user3@example.com"])
            #expect(try await page("email=nobody@example.com").emails.isEmpty)
            #expect(try await page("state=unverified&pageSize=200").emails.count == 8)
            #expect(try await page("state=locked").emails.isEmpty)
            let user3 = try await Self.userID(app, "user3@example.com")
            #expect(try await page("email=user3@example.com&userId=\(user3)").emails == ["user3@example.com"], "lookups that agree")
            #expect(try await page("email=user3@example.com&userId=\(try await Self.userID(app, "user4@example.com"))").emails.isEmpty,
                    "lookups that name two users name none")
            #expect(try await page("email=user3@example.com&state=unverified&pageToken=1.x").emails == ["user3@example.com"])
            #expect(try await page("email=user3@example.com&state=locked").emails.isEmpty, "the state holds for the user found")
            for bad in ["pageSize=0", "pageSize=201", "pageToken=nonsense", "pageToken=123456789012.x", "state=gone"] {
                #expect(try await client.call(.get, "/admin/v1/users?\(bad)", headers: Self.admin(viewer)).status == .badRequest, "\(bad)")
            }
        }
    }

    /// The audit trail's page, newest first, filtered by user, type, outcome, address and time,
    /// continues where it stopped; each call of it is itself an event naming the key.
    @Test(arguments: TestEnvironment.engines)
    func eventsAreFilteredAndPaged(engine: String) async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        try await withServer(engine: engine, clock: clock, configure: Self.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let ada = try await Self.userID(app)
            clock.advance(60)
            let middle = clock.now
            for index in 0..<3 {
                clock.advance(1)
                _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)")
            }
            let (record, viewer) = try await Self.key(app, .viewer, clock: clock)
            func page(_ query: String) async throws -> (events: [Components.Schemas.Event], token: String?, link: String?) {
                clock.advance(1)  // each call's own event is recorded later than the events before it
                let answer = try await client.call(.get, "/admin/v1/events?\(query)", headers: Self.admin(viewer))
                #expect(answer.status == .ok, "\(query): \(answer.json)")
                let page = try #require(answer.eventPage, "\(query): \(answer.json)")
                return (page.events, page.nextPageToken, answer.headers[HTTPField.Name("Link")!])
            }
            let failed = try await page("userId=\(ada)&type=login.failed")
            #expect(failed.events.count == 3 && failed.events.allSatisfy { $0.outcome == .failure && $0.userId == ada })
            let ids = failed.events.map(\.id)
            #expect(ids == ids.sorted(by: >), "newest first")
            #expect(try await page("userId=\(ada)&type=login.failed&outcome=success").events.isEmpty)
            let stamp = middle.formatted(.iso8601)
            let before = try await page("userId=\(ada)&until=\(stamp)")
            #expect(!before.events.isEmpty && before.events.allSatisfy { $0._type != .login_failed }, "\(before.events)")
            #expect(try await page("userId=\(ada)&type=login.failed&since=\(stamp)").events.count == 3)
            #expect(try await page("userId=\(ada)&type=login.failed&until=\(stamp)").events.isEmpty)
            // The in-process test client has no address of its own ("unknown"), which is no IP address.
            if let address = failed.events.first?.clientIp, address.range(of: "^[0-9A-Fa-f:.]{2,45}$", options: .regularExpression) != nil {
                #expect(try await page("clientIp=\(address)&type=login.failed").events.count == 3)
            }
            #expect(try await page("clientIp=203.0.113.77").events.isEmpty)

            let first = try await page("userId=\(ada)&pageSize=2")
            let token = try #require(first.token)
            #expect(first.link == "</admin/v1/events?userId=\(ada)&pageSize=2&pageToken=\(token)>; rel=\"next\"")
            let rest = try await page("userId=\(ada)&pageSize=200&pageToken=\(token)")
            let all = try await page("userId=\(ada)&pageSize=200")
            // Reading a user's trail is itself an event about the user, newer than the pages: they
            // are left out of the comparison.
            let newest = try #require(first.events.first?.id)
            #expect((first.events + rest.events).map(\.id) == all.events.map(\.id).filter { $0 <= newest },
                    "two pages are the whole, in order")

            let calls = try await page("type=operator.command")
            #expect(calls.events.contains { event in
                let details = event.details.additionalProperties
                return details["command"] == "admin listEvents" && details["operatorKey"] == record.id && event.actor == ._operator
            })
            #expect(try await page("since=\(stamp)&until=\(stamp)").events.isEmpty, "an empty range is empty")
            for (bad, field) in [("type=nope", "type"), ("pageToken=bm9wZQ", "pageToken"), ("pageSize=0", "pageSize"),
                                 ("outcome=maybe", "outcome"), ("clientIp=a%0A", "clientIp"), ("since=yesterday", "since"),
                                 ("until=2026-13-01T00:00:00Z", "until")] {
                let answer = try await client.call(.get, "/admin/v1/events?\(bad)", headers: Self.admin(viewer))
                #expect(answer.status == .badRequest && (field == nil || answer.failure?.field == field), "\(bad): \(answer.json)")
            }
        }
    }

    /// Attack: a page token whose time is past what a database integer holds
    /// trapped the process (any viewer key could stop the server); control characters in a
    /// parameter (a NUL, which PostgreSQL's text refuses) answered 500. Both are 400 naming the
    /// parameter now, as are values the runtime could not decode.
    @Test(arguments: TestEnvironment.engines)
    func badParametersAre400sNamingThem(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let (_, viewer) = try await Self.key(app, .support)
            func token(_ text: String) -> String {
                Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
            }
            let cases: [(String, String)] = [
                ("/admin/v1/users?pageToken=9223372036854775807.x", "pageToken"),
                ("/admin/v1/users?pageToken=\(token("9223372036854775807.x"))", "pageToken"),
                ("/admin/v1/users?email=a%0A", "email"), ("/admin/v1/users/a%0A", "userId"),
                ("/admin/v1/users?pageToken=\(token("-5.x"))", "pageToken"),
                ("/admin/v1/users?pageToken=\(token("1.\u{0}"))", "pageToken"),
                ("/admin/v1/users/%00", "userId"), ("/admin/v1/users/%00/unlock", "userId"),
                ("/admin/v1/users?email=%00", "email"), ("/admin/v1/users?userId=a%00b", "userId"),
                ("/admin/v1/users?thumbprint=a%0Ab", "thumbprint"), ("/admin/v1/users?phone=%2B1555%00", "phone"),
                ("/admin/v1/users?phone=+15551234567", "phone"), ("/admin/v1/users?state=gone", "state"),
                ("/admin/v1/users?pageSize=abc", "pageSize"), ("/admin/v1/events?userId=%00", "userId"),
                ("/admin/v1/events?clientIp=%00", "clientIp"), ("/admin/v1/events?outcome=maybe", "outcome"),
                ("/admin/v1/events?pageToken=\(token("e.\u{0}"))", "pageToken"),
            ]
            for (path, field) in cases {
                let answer = try await client.call(path.contains("unlock") ? .post : .get, path, headers: Self.admin(viewer))
                #expect(answer.status == .badRequest && answer.failure?.field == field, "\(path): \(answer.status) \(answer.json)")
            }
            #expect(try await client.call(.get, "/admin/v1/users/", headers: Self.admin(viewer)).status == .notFound, "a trailing slash")
            #expect(try await client.call(.get, "/admin/v1//users", headers: Self.admin(viewer)).status == .notFound)
        }
    }

    /// Unlock lifts locks, not an operator's deactivation (a fraud hold): that one stays.
    @Test(arguments: TestEnvironment.engines)
    func unlockLeavesAnOperatorsDeactivation(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let user = try await Self.userID(app)
            // One failure counted before the operator's deactivation (fewer than the threshold).
            _ = try await app.store.reserveAttempt(userID: user, deviceID: nil, limits: AttemptLimits(wallet: 100, device: 100))
            _ = try await app.store.recordFailure(userID: user, deviceID: nil, limits: AttemptLimits(wallet: 100, device: 100), now: Date())
            try await app.store.setUserStatus(userID: user, status: .deactivated, now: Date())
            #expect(try await app.store.user(id: user)?.failedAttempts == 1)
            let (_, support) = try await Self.key(app, .support)
            let admin = client.admin(support)
            let said = try await admin.user(user).loginBlocks.first?.message ?? ""
            #expect(said.contains("by an operator") && said.contains("unlock does not lift it"),
                    "a failure counted before the deactivation does not make it a lockout: \(said)")
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/unlock", headers: Self.admin(support)).status == .noContent)
            #expect(try await app.store.user(id: user)?.status == .deactivated)
            let blocks = try await admin.user(user).loginBlocks
            #expect(blocks.first?.message.contains("by an operator") == true, "\(blocks)")
        }
    }

    /// The admin API answers nowhere unless enabled, and on the public port only when asked.
    @Test func theAdminAPIIsOffAndOffThePublicPortByDefault() async throws {
        try await withServer { _, client in
            let answer = try await client.call(.get, "/admin/v1/users", headers: [:])
            #expect(answer.status == .notFound)
        }
        try await withServer(configure: { $0.admin.enabled = true; $0.admin.port = 0 }) { _, client in
            let answer = try await client.call(.get, "/admin/v1/users", headers: [:])
            #expect(answer.status == .notFound, "its own listener only")
        }
    }
}
