import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyAdminAPI
import LatchkeyAdminClient
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// What support finds a user by and what a user's page tells — every lookup and state,
/// every reason a login fails, the devices' certificates, device tokens, latest events and the
/// bound on sessions — and the wallet's deactivation and the key's rate limit, over HTTP on both engines.
@Suite struct AdminDetailTests {
    static func configure(_ configuration: inout ServerConfiguration) {
        AdminAPITests.configure(&configuration)
        SignupFixture.configure(&configuration)
        configuration.publicURL = TestDeviceKey.base
    }

    static func users(_ client: any TestClientProtocol, _ query: String, _ key: String) async throws -> [String] {
        let answer = try await client.call(.get, "/admin/v1/users?\(query)", headers: AdminAPITests.admin(key))
        #expect(answer.status == .ok, "\(query): \(answer.json)")
        return try #require(answer.userPage, "\(query): \(answer.json)").users.map(\.email)
    }

    /// Every exact lookup finds its user: phone, device key thumbprint, the issuer's external id
    /// (which may name several users, newest first); lookups that name different users find none;
    /// each state lists its users.
    @Test(arguments: TestEnvironment.engines)
    func everyLookupAndStateFindsItsUsers(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let device = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: device)
            let (_, viewer) = try await AdminAPITests.key(app, .viewer)
            for (index, email) in ["one@example.com", "two@example.com", "three@example.com"].enumerated() {
                var user = StorageContractTests().user(email)
                user.externalId = index < 2 ? "CUST-SHARED" : "CUST-3"
                user.phone = "+1555000000\(index)"
                user.phoneNormalized = user.phone
                user.createdAt = Date(timeIntervalSince1970: 1_000_000 + TimeInterval(index))
                user.emailVerified = index != 1
                try await app.store.createUser(user, answers: [], tokens: [], messages: [])
            }
            let two = try await AdminAPITests.userID(app, "two@example.com")
            try await app.store.setUserStatus(userID: two, status: .deactivated, now: Date())
            try await app.store.setLocked(userID: try await AdminAPITests.userID(app, "three@example.com"), locked: true)

            #expect(try await Self.users(client, "phone=%2B15550000002", viewer) == ["three@example.com"])
            #expect(try await Self.users(client, "thumbprint=\(device.thumbprint)", viewer) == ["ada@example.com"])
            #expect(try await Self.users(client, "externalId=CUST-SHARED", viewer) == ["two@example.com", "one@example.com"],
                    "an external id the issuer gave twice names both, newest first")
            #expect(try await Self.users(client, "externalId=CUST-SHARED&email=one@example.com", viewer) == ["one@example.com"])
            #expect(try await Self.users(client, "externalId=CUST-SHARED&email=one@example.com&pageSize=1", viewer) == ["one@example.com"],
                    "the page's size does not cut the older user both lookups name")
            #expect(try await Self.users(client, "externalId=CUST-SHARED&state=active&pageSize=1", viewer) == ["one@example.com"],
                    "the state is applied before the page's size")
            for email in ["one@example.com", "two@example.com"] {
                let id = try await AdminAPITests.userID(app, email)
                #expect(try await app.store.auditEvents(userID: id, limit: 50)
                    .contains { $0.type == .operatorCommand && $0.details["command"] == "admin listUsers" },
                        "a lookup that disclosed several users is in each one's trail")
            }
            #expect(try await Self.users(client, "externalId=CUST-3&email=one@example.com", viewer).isEmpty,
                    "lookups that name different users find none")
            #expect(try await Self.users(client, "externalId=CUST-SHARED&state=deactivated", viewer) == ["two@example.com"])
            #expect(try await Self.users(client, "externalId=nobody", viewer).isEmpty)
            #expect(try await Self.users(client, "emailPrefix=T", viewer) == ["three@example.com", "two@example.com"])
            // Every filter given holds: a lookup and a prefix of its address, or of another's.
            #expect(try await Self.users(client, "email=two@example.com&emailPrefix=TW", viewer) == ["two@example.com"])
            #expect(try await Self.users(client, "email=two@example.com&emailPrefix=one", viewer).isEmpty)
            #expect(try await Self.users(client, "state=deactivated", viewer) == ["two@example.com"])
            #expect(try await Self.users(client, "state=unverified", viewer) == ["two@example.com"])
            #expect(try await Self.users(client, "state=locked", viewer) == ["three@example.com"])
            #expect(Set(try await Self.users(client, "state=active", viewer)) == ["ada@example.com", "one@example.com"])
            let bad = try await client.call(.get, "/admin/v1/users?externalId=a%00b", headers: AdminAPITests.admin(viewer))
            #expect(bad.status == .badRequest && bad.failure?.field == "externalId", "\(bad.json)")
        }
    }

    /// A user's page lists its device's certificate and status, its live device tokens (never the
    /// token), its newest events, and says when more sessions are live than it lists.
    @Test(arguments: TestEnvironment.engines)
    func theDetailShowsCertificatesTokensEventsAndMoreSessions(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let device = TestDeviceKey()
            let session = try await AuthFixture.keyEnrolledSession(app, client, key: device)
            let issued = try await client.dpopCall(device, .put, DeviceKeyRegistrationTests.path, token: session,
                                                   body: ["publicKey": device.key.publicKey.pemRepresentation])
            #expect(issued.status == .ok, "\(issued.json)")
            let token = try await client.dpopCall(device, .post, "/v1/auth/device-token", token: session,
                                                  body: ["username": "ada@example.com", "password": AuthFixture.password])
            let secret = try #require(token.decoded(LatchkeyAPI.Components.Schemas.DeviceTokenResponse.self)?.deviceToken, "\(token.json)")
            let user = try await AdminAPITests.userID(app)
            let (_, viewer) = try await AdminAPITests.key(app, .viewer)
            let admin = client.admin(viewer)

            let raw = try await client.call(.get, "/admin/v1/users/\(user)", headers: AdminAPITests.admin(viewer))
            #expect(!String(decoding: raw.data, as: UTF8.self).contains(secret), "the device token itself is never shown")
            let detail = try #require(raw.decoded(LatchkeyAdminAPI.Components.Schemas.UserDetail.self), "\(raw.json)")
            let keyed = try #require(detail.devices.first { $0.thumbprint == device.thumbprint })
            let certificate = try #require(keyed.certificate, "\(keyed)")
            #expect(certificate.status == .valid && !certificate.serial.isEmpty)
            #expect(detail.deviceTokens.count == 1 && detail.deviceTokens[0].deviceId == "jkt:" + device.thumbprint)
            let types = detail.events.map(\._type)
            #expect(types.contains(.login_succeeded) && types.contains(.deviceToken_created) && types.contains(.certificate_issued),
                    "\(types)")
            let ids = detail.events.map(\.id)
            #expect(ids == ids.sorted(by: >), "newest first")
            #expect(detail.moreSessions == false)

            // The device is deactivated: its certificate is revoked; unlinked: its token is gone.
            let support = AdminAPITests.admin(try await AdminAPITests.key(app, .support).1)
            let path = "/admin/v1/users/\(user)/devices/jkt:\(device.thumbprint)"
            #expect(try await client.call(.post, path + "/deactivate", headers: support).status == .noContent)
            let revoked = try await admin.user(user).devices.first { $0.thumbprint == device.thumbprint }
            #expect(revoked?.certificate?.status == .revoked, "\(String(describing: revoked))")
            #expect(try await client.call(.delete, path, headers: support).status == .noContent)
            let unlinked = try await admin.user(user)
            #expect(unlinked.deviceTokens.isEmpty)
            let commands = unlinked.events.compactMap { $0.details.additionalProperties["command"] }
            #expect(commands.contains("admin unlinkDevice") && !commands.contains("admin getUser"),
                    "operators' changes are among the latest events, their reads are not: \(commands)")
            // A support desk refreshing the page during an incident: 110 more reads of the user
            // still leave its own events in the list.
            for _ in 0..<110 { _ = try await client.call(.get, "/admin/v1/users/\(user)", headers: AdminAPITests.admin(viewer)) }
            let latest = try await admin.user(user).events.map(\._type)
            #expect(latest.contains(.login_succeeded) && latest.contains(.device_unlinked), "\(latest)")

            // Exactly 100 live sessions: all listed, no more; a 101st: 100 listed and more.
            let now = Date()
            func add(_ index: Int) async throws {
                try await app.store.createSession(SessionRecord(
                    digest: SecureRandom.digest("many-\(index)"), userID: user, deviceID: "device-1", createdAt: now,
                    lastSeenAt: now, expiresAt: now.addingTimeInterval(3600)))
            }
            for index in unlinked.sessions.count..<UserAdministration.sessionsListed { try await add(index) }
            let full = try await admin.user(user)
            #expect(full.sessions.count == UserAdministration.sessionsListed && full.moreSessions == false)
            try await add(UserAdministration.sessionsListed)
            let many = try await admin.user(user)
            #expect(many.sessions.count == UserAdministration.sessionsListed)
            #expect(many.moreSessions == true)
        }
    }

    /// Every reason a login fails is named: the operator lock, the smart lockout of unlinked devices
    /// (with until when), an expired password, an unverified address, an operator's deactivation.
    @Test(arguments: TestEnvironment.engines)
    func everyReasonALoginFailsIsNamed(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: {
            AdminAPITests.configure(&$0)
            $0.issuer.passwordExpiryDays = 30
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            _ = try await AuthFixture.register(client, email: "bob@example.com", device: "bob-phone")
            let user = try await AdminAPITests.userID(app)
            let (_, support) = try await AdminAPITests.key(app, .support, clock: clock)
            func reasons(_ id: String) async throws -> [LatchkeyAdminAPI.Components.Schemas.LoginBlock] {
                try await client.admin(support).user(id).loginBlocks
            }
            #expect(try await reasons(AdminAPITests.userID(app, "bob@example.com")).map(\.reason) == [.emailNotVerified])

            #expect(try await client.call(.post, "/admin/v1/users/\(user)/lock", headers: AdminAPITests.admin(support)).status == .noContent)
            for index in 0..<12 {
                _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)", device: "stranger")
            }
            let locked = try await reasons(user)
            #expect(locked.map(\.reason) == [.operatorLock, .unlinkedDevicesLocked], "\(locked)")
            let until = try #require(locked.last?.until)
            #expect(until > clock.now, "the lockout's end is in the future")

            clock.advance(31 * 86_400)
            #expect(try await reasons(user).map(\.reason) == [.operatorLock, .passwordExpired],
                    "the lockout ended; the password expired")

            // The operator's deactivation stops every login; reactivation lets them in again.
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/unlock", headers: AdminAPITests.admin(support)).status == .noContent)
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/deactivate", headers: AdminAPITests.admin(support)).status == .noContent)
            let deactivated = try await reasons(user)
            #expect(deactivated.first?.reason == .walletDeactivated
                    && deactivated.first?.message.contains("by an operator") == true, "\(deactivated)")
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 421)
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/reactivate", headers: AdminAPITests.admin(support)).status == .noContent)
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 508, "active again: the expired password is what is left")
        }
    }

    /// A key's calls are limited per minute (`admin.requestsPerMinutePerKey`), with Retry-After;
    /// another key is not held back by it.
    @Test(arguments: TestEnvironment.engines)
    func aKeysCallsAreLimited(engine: String) async throws {
        // A clock of its own: a minute's window must not turn over between the calls.
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        try await withServer(engine: engine, clock: clock, configure: {
            AdminAPITests.configure(&$0)
            $0.rateLimits.enabled = true
            $0.admin.requestsPerMinutePerKey = 3
        }) { app, client in
            let (_, busy) = try await AdminAPITests.key(app, .viewer, clock: clock)
            let (_, other) = try await AdminAPITests.key(app, .viewer, clock: clock)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin(busy)).status.code) }
            #expect(statuses == [200, 200, 200, 429])
            let refused = try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin(busy))
            #expect(refused.failure?.id == "rate_limited" && refused.headers[.retryAfter] != nil)
            #expect(try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin(other)).status == .ok)
        }
    }

    /// Calls are also counted per client address, before the key is looked up: keys made up or
    /// many real ones from one address share its limit, with the wallet API's own count apart.
    @Test(arguments: TestEnvironment.engines)
    func anAddressesCallsAreLimitedWhateverTheKey(engine: String) async throws {
        // A clock of its own: a minute's window must not turn over between the calls.
        let clock = TestClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        try await withServer(engine: engine, clock: clock, configure: {
            AdminAPITests.configure(&$0)
            $0.rateLimits.enabled = true
            $0.rateLimits.requestsPerMinutePerIP = 3
        }) { app, client in
            let keys = [try await AdminAPITests.key(app, .viewer, clock: clock).1, try await AdminAPITests.key(app, .viewer, clock: clock).1]
            var statuses: [Int] = []
            for index in 0..<3 {
                statuses.append(try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin(keys[index % 2])).status.code)
            }
            statuses.append(try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin("lkop_made_up")).status.code)
            statuses.append(try await client.call(.get, "/admin/v1/users", headers: AdminAPITests.admin(keys[1])).status.code)
            #expect(statuses == [200, 200, 200, 429, 429], "\(statuses)")
            #expect(try await client.call(.get, "/v1/enrollment/mfa-questions").status == .ok, "the wallet API counts apart")
        }
    }
    /// Filters combined read a bounded stretch of the trail per page (`pageSize` + 1 events of one
    /// filter's index): a page may be short or empty and still have a next one, and following the
    /// tokens to the end gives every match once, newest first.
    @Test(arguments: TestEnvironment.engines)
    func combinedFiltersPageThroughABoundedRead(engine: String) async throws {
        try await withServer(engine: engine, configure: AdminAPITests.configure) { app, client in
            let (_, viewer) = try await AdminAPITests.key(app, .viewer)
            // A quarter past a second (exact in binary and in milliseconds: the bounds below).
            let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 3600 + 0.25)
            // 40 events from one address: every tenth a failed login, the rest successful ones.
            let events = (0..<40).map { index in
                let time = start.addingTimeInterval(TimeInterval(index))
                return AuditEvent(id: AuditEvent.newID(at: time), occurredAt: time, type: index % 10 == 0 ? .loginFailed : .loginSucceeded,
                                  outcome: index % 10 == 0 ? .failure : .success, userID: nil, actor: .user, clientIP: "198.51.100.7")
            }
            try await app.store.appendAuditEvents(events)
            var pages: [[String]] = []
            var token: String?
            repeat {
                let query = "clientIp=198.51.100.7&type=login.failed&pageSize=3" + (token.map { "&pageToken=\($0)" } ?? "")
                let answer = try await client.call(.get, "/admin/v1/events?\(query)", headers: AdminAPITests.admin(viewer))
                #expect(answer.status == .ok, "\(answer.json)")
                let page = try #require(answer.eventPage, "\(answer.json)")
                pages.append(page.events.map(\.id))
                token = page.nextPageToken
            } while token != nil && pages.count < 50
            let expected = events.filter { $0.type == .loginFailed }.map(\.id).sorted(by: >)
            #expect(pages.flatMap { $0 } == expected, "every match once, newest first")
            #expect(pages.contains { $0.isEmpty }, "a stretch without a match is an empty page with a next one")
            #expect(pages.count == 11, "40 events read 4 at a time, and a last read finds none: \(pages.count) pages")
            // Bounds past the ids' 16 digits of microseconds (the year 2286) bound like the last one.
            func count(_ query: String) async throws -> Int {
                let answer = try await client.call(.get, "/admin/v1/events?clientIp=198.51.100.7&pageSize=200&\(query)",
                                                   headers: AdminAPITests.admin(viewer))
                return answer.eventPage?.events.count ?? -1
            }
            #expect(try await count("until=2300-01-01T00:00:00Z") == 40)
            #expect(try await count("since=2300-01-01T00:00:00Z") == 0)
            #expect(try await count("until=1900-01-01T00:00:00Z") == 0)
            #expect(try await count("since=1900-01-01T00:00:00Z") == 40)
            // To the microsecond: from the fifth event's instant on, and before it.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let fifth = formatter.string(from: events[4].occurredAt).replacingOccurrences(of: ":", with: "%3A")
            #expect(fifth.hasSuffix(".250Z"), "\(fifth)")
            #expect(try await count("since=\(fifth)") == 36)
            #expect(try await count("until=\(fifth)") == 4)
        }
    }
}
