import Foundation
import LatchkeyAPI
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The audit trail (ASVS V16): security events in `audit_events`, written with the change they
/// record, append-only, without secrets.
@Suite struct AuditTrailTests {
    /// Every event of the trail, in recording order.
    static func trail(_ app: LatchkeyApplication) async throws -> [AuditEvent] {
        try await app.store.auditEvents(after: nil, since: nil, limit: 10_000)
    }

    /// An import records an event per user at one instant (the batch's): 32 random bits after
    /// the time made two of a million ids alike often enough that a 1,000,000-user import
    /// failed on the trail's primary key (`uniqueViolation(audit_events.id)`, seen importing
    /// the admin benchmark's users). 300,000 ids of one microsecond are distinct.
    @Test func idsOfOneInstantAreDistinct() {
        let time = Date()
        let ids = (0..<300_000).map { _ in AuditEvent.newID(at: time) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.hasPrefix(ids[0].prefix(16)) }, "the time comes first, so ids sort by time")
    }

    @Test(arguments: TestEnvironment.engines)
    func securityEventsAreRecordedWithoutSecrets(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            var secrets = [AuthFixture.password, AuthFixture.pin] + Array(AuthFixture.answers.values)
            let nonce = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)
            let first = try await client.call(.post, "/v1/auth/login/nonce", headers: appHeaders(), body: ["nonce": nonce])
            secrets += [nonce, try #require(first.login?.sessionToken)]
            _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-1")
            _ = try await AuthFixture.passwordLogin(client, email: "nobody@example.com", password: "wrong-password-2")
            let prompt = try await LoginTests.prompt(client, device: "device-2")
            secrets.append(prompt.challenge)
            _ = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                      body: ["challengeToken": prompt.challenge, "mfaSecretAnswer": "wrong-answer-3"])
            let again = try await LoginTests.prompt(client, device: "device-2")
            let linked = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                               body: ["challengeToken": again.challenge,
                                                      "mfaSecretAnswer": AuthFixture.answer(for: again.question)])
            let second = try #require(linked.login?.sessionToken)
            secrets += [again.challenge, second, "wrong-password-1", "wrong-password-2", "wrong-answer-3"]
            // A privileged change needs a login that checked something the user knows: the PIN.
            let pinLogin = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(), body: ["pin": AuthFixture.pin])
            let session = try #require(pinLogin.login?.sessionToken)
            secrets.append(session)
            let changed = try await client.call(.put, "/v1/profile/password", headers: appHeaders(session: session),
                                                body: ["oldPassword": AuthFixture.password, "newPassword": "fresh-horse-77",
                                                       "confirmNewPassword": "fresh-horse-77"])
            #expect(changed.status == .ok, "\(changed.json)")
            secrets.append("fresh-horse-77")
            #expect(try await client.call(.delete, "/v1/devices/device-2", headers: appHeaders(session: session)).status
                    == .noContent)
            #expect(try await client.call(.post, "/v1/auth/logout", headers: appHeaders(session: session)).status.code < 300)
            _ = try await ResetFixture.requestLink(app, client)

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let events = try await app.store.auditEvents(userID: user.id, limit: 100)
            let types = events.map(\.type)
            let expected: [AuditEventType] = [.userRegistered, .deviceLinked, .loginSucceeded, .loginFailed, .mfaPrompted,
                                              .loginFailed, .mfaPrompted, .mfaAnswered, .deviceLinked, .loginSucceeded,
                                              .loginSucceeded, .passwordChanged, .deviceUnlinked, .sessionEnded, .resetRequested]
            #expect(types == expected)
            let wrong = try #require(events.first { $0.type == .loginFailed })
            #expect(wrong.outcome == .failure && wrong.reason == "wrong_password" && wrong.deviceID == "device-1")
            #expect(wrong.clientIP != nil && wrong.actor == .user)
            #expect(events.first { $0.type == .loginSucceeded }?.details["method"] == "nonce")
            #expect(events.filter { $0.type == .loginSucceeded }.map { $0.details["method"] } == ["nonce", "mfa", "pin"])
            #expect(events.filter { $0.type == .loginFailed }.last?.reason == "wrong_mfa_answer")

            let all = try await Self.trail(app)
            let unknown = try #require(all.first { $0.reason == "unknown_user" })
            #expect(unknown.userID == nil && unknown.details["identifier"] == "nobody@example.com")
            let text = String(decoding: try JSONEncoder().encode(all), as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "no secret in the trail") }
        }
    }

    /// An event commits with its change or not at all: of parallel registrations of one address,
    /// one wallet exists and one registration is recorded; parallel wrong passwords from the
    /// linked device lock the wallet once and record it once.
    @Test(arguments: TestEnvironment.engines)
    func eventsCommitWithTheirChange(engine: String) async throws {
        // Verification off: each registration is a wallet at once, so seven of eight lose the race.
        try await withServer(engine: engine, configure: { $0.issuer.emailVerificationRequired = false }) { app, client in
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        Int(try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: "device-\(index)"),
                                                  body: registrationBody()).status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.filter { $0 == 201 }.count == 1)
            #expect(try await Self.trail(app).filter { $0.type == .userRegistered }.count == 1)

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.linkDevice(userID: user.id, deviceID: "device-1", deviceType: nil, label: nil, now: Date())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)") }
                }
                try await group.waitForAll()
            }
            let trail = try await Self.trail(app)
            #expect(trail.filter { $0.type == .walletLocked }.count == 1)
            #expect(trail.filter { $0.reason == "wrong_password" }.count == 5, "one event per checked password")
        }
    }

    /// The table keeps what it was given: the database refuses updates and the deletion of recent
    /// events; the retention deletes old ones only.
    @Test(arguments: TestEnvironment.engines)
    func theTrailIsAppendOnly(engine: String) async throws {
        let clock = TestClock(start: Date().addingTimeInterval(-400 * 86_400))
        try await withServer(engine: engine, clock: clock) { app, client in
            _ = try await AuthFixture.register(client)
            clock.advance(400 * 86_400)
            _ = try await AuthFixture.passwordLogin(client, email: "nobody@example.com")
            let store = try #require(app.store as? SQLStore)
            await #expect(throws: (any Error).self) {
                try await store.engine.execute("UPDATE audit_events SET reason = 'forged'")
            }
            await #expect(throws: (any Error).self) {
                try await store.engine.execute("DELETE FROM audit_events WHERE reason = 'unknown_user'")
            }
            // Attack on the one change erasure may make (a redaction): anything more than emptying
            // an event about a user is refused — a changed type, a redaction that keeps details,
            // an event about no one, a detail rewritten to something else.
            for forgery in [
                "UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL, type = 'login.succeeded' WHERE user_id IS NOT NULL",
                "UPDATE audit_events SET client_ip = NULL, device_id = NULL WHERE user_id IS NOT NULL",
                "UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL WHERE user_id IS NULL",
                "UPDATE audit_events SET details = '{\"to\":\"mallory@example.com\"}', client_ip = NULL, device_id = NULL WHERE user_id IS NOT NULL",
                "UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL, user_id = 'someone-else' WHERE user_id IS NOT NULL",
                // A NULL must not slip past SQLite's comparisons: a living user's events are no one's to redact.
                "UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL, user_id = NULL WHERE user_id IS NOT NULL",
                "UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL, id = NULL WHERE user_id IS NOT NULL",
                "UPDATE audit_events SET details = '{}', client_ip = NULL, device_id = NULL WHERE user_id IS NOT NULL",
            ] {
                await #expect(throws: (any Error).self, "\(forgery)") { try await store.engine.execute(forgery) }
            }
            let before = try await Self.trail(app)
            #expect(before.count == 2 && before.allSatisfy { $0.reason != "forged" && !$0.details.isEmpty || $0.type == .loginFailed })
            #expect(before.first { $0.type == .userRegistered }?.details.isEmpty == false, "unchanged")
            let audit = AuditAdministration(store: app.store, issuer: app.configuration.issuer, now: { clock.now })
            #expect(try await audit.purgeEvents(retentionDays: 365) == 1, "the registration 400 days ago")
            let after = try await Self.trail(app)
            #expect(after.map(\.type) == [.loginFailed])
        }
    }

    /// What `latchkey users events` and `latchkey audit export` read; operators' commands are
    /// events too.
    @Test func operatorsReadTheTrailAndAreInIt() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let users = UserAdministration(store: app.store, issuer: app.configuration.issuer)
            let audit = AuditAdministration(store: app.store, issuer: app.configuration.issuer)
            try await users.setStatus(.email("ada@example.com"), .deactivated, for: .commandLine)
            try await users.lock(.email("ada@example.com"), for: .commandLine)
            let events = try await audit.latestEvents(of: .email("ada@example.com"), limit: 4, for: .commandLine)
            #expect(events.map(\.type) == [.loginSucceeded, .operatorCommand, .walletStatusChanged, .operatorCommand])
            // Named as the admin API names the same actions.
            #expect(events.map { $0.details["command"] } == [nil, "admin deactivateUser", nil, "admin lockUser"])
            #expect(events.filter { $0.type == .operatorCommand }.allSatisfy { $0.actor == .operator })
            #expect(events.contains { $0.type == .walletStatusChanged && $0.reason == "deactivated" && $0.actor == .operator })
            var exported: [AuditEvent] = []
            let count = try await audit.exportEvents(since: nil, pageSize: 2, for: .commandLine) { exported += $0 }
            #expect(count == exported.count && Set(exported.map(\.id)).count == count)
            #expect(exported.map(\.id) == exported.map(\.id).sorted())
            #expect(exported.last?.details["command"] == "audit export")
        }
    }
}
