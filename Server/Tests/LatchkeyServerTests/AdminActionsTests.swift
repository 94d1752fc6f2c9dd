import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyAdminAPI
import LatchkeyAdminClient
@testable import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The admin API's actions beyond locks — devices, one session, the emails support
/// sends, marking verified, erasing — on both engines, each an event naming the operator.
@Suite struct AdminActionsTests {
    typealias Admin = AdminAPITests

    /// A stolen phone: support suspends it (its session ends, the other phone's stays), reactivates
    /// it, deactivates it, then unlinks it; an unknown device is 404 and a failed event.
    @Test(arguments: TestEnvironment.engines)
    func supportActsOnOneDevice(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let stolen = try await AuthFixture.enrolledSession(app, client)
            let other = try #require(try await AuthFixture.passwordLogin(client, device: "device-2").login)
            let otherSession = try await Self.linkedSession(client, other, device: "device-2")
            let user = try await Admin.userID(app)
            let (record, support) = try await Admin.key(app, .support)
            let base = "/admin/v1/users/\(user)/devices/device-1"

            #expect(try await client.call(.post, base + "/suspend", headers: Admin.admin(support)).status == .noContent)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: stolen)).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(device: "device-2", session: otherSession)).status == .ok,
                    "the other phone's session stays")
            #expect(try await AuthFixture.passwordLogin(client).failure?.id == "device_suspended")
            #expect(try await client.admin(support).user(user).loginBlocks.map(\.reason) == [.deviceSuspended])

            #expect(try await client.call(.post, base + "/reactivate", headers: Admin.admin(support)).status == .noContent)
            #expect(try await AuthFixture.passwordLogin(client).status == .ok)
            #expect(try await client.call(.post, base + "/deactivate", headers: Admin.admin(support)).status == .noContent)
            #expect(try await AuthFixture.passwordLogin(client).failure?.id == "device_deactivated")
            #expect(try await client.call(.delete, base, headers: Admin.admin(support)).status == .noContent)
            #expect(try await app.store.device(userID: user, deviceID: "device-1") == nil, "unlinked")

            let unknown = try await client.call(.delete, base, headers: Admin.admin(support))
            #expect(unknown.status == .notFound && unknown.failure?.id == "unknown_device" && unknown.failure?.field == "deviceId")
            let events = try await app.store.auditEvents(userID: user, limit: 100)
            let commands = events.filter { $0.type == .operatorCommand && $0.details["operatorKey"] == record.id }
            #expect(commands.compactMap { $0.details["command"] }.filter { $0.contains("Device") || $0.contains("unlink") }
                == ["admin suspendDevice", "admin reactivateDevice", "admin deactivateDevice", "admin unlinkDevice", "admin unlinkDevice"])
            #expect(commands.last?.outcome == .failure && commands.last?.details["error"] == "unknown_device",
                    "the refusal is a failed event naming the error, not a success")
            #expect(events.filter { $0.type == .deviceUnlinked && $0.actor == .operator }.count == 1)
            #expect(events.filter { $0.type == .deviceStatusChanged && $0.actor == .operator }.map(\.reason)
                == ["suspended", "active", "deactivated"])
        }
    }

    /// One session ends (on this replica at once; on others within `SessionCache.lifetime`); the
    /// user's other session stays. A session id of another user is unknown.
    @Test(arguments: TestEnvironment.engines)
    func oneSessionEndsTheOthersStay(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let first = try await AuthFixture.enrolledSession(app, client)
            let second = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let user = try await Admin.userID(app)
            let (_, support) = try await Admin.key(app, .support)
            let firstID = String(SecureRandom.digest(first).prefix(16))
            #expect(try await client.admin(support).user(user).sessions.contains { $0.id == firstID })

            _ = try await AuthFixture.nonceSession(app, client, email: "bob@example.com", device: "device-9")
            let bob = try await Admin.userID(app, "bob@example.com")
            let wrongUser = try await client.call(.delete, "/admin/v1/users/\(bob)/sessions/\(firstID)", headers: Admin.admin(support))
            #expect(wrongUser.status == .notFound && wrongUser.failure?.id == "unknown_session")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: first)).status == .ok)

            #expect(try await client.call(.delete, "/admin/v1/users/\(user)/sessions/\(firstID)", headers: Admin.admin(support)).status
                == .noContent)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: first)).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: second)).status == .ok)
            let again = try await client.call(.delete, "/admin/v1/users/\(user)/sessions/\(firstID)", headers: Admin.admin(support))
            #expect(again.failure?.id == "unknown_session", "an ended session is not live")
            #expect(try await app.store.auditEvents(userID: user, limit: 100)
                .contains { $0.type == .sessionEnded && $0.actor == .operator && $0.details["by"] == "operator" })
        }
    }

    /// Support resends the verification email and marks an address verified; a reset link goes
    /// to the user's address; a verified address gets no second verification email (409).
    @Test(arguments: TestEnvironment.engines)
    func supportSendsTheEmailsAndMarksVerified(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            _ = try await AuthFixture.register(client)
            let user = try await Admin.userID(app)
            let (_, support) = try await Admin.key(app, .support)
            func sent(_ template: String) async throws -> Int {
                try await app.store.outboxMessages().filter { $0.recipient == "ada@example.com" && $0.template == template }.count
            }
            let before = try await sent("email_verification")
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/verification-email", headers: Admin.admin(support)).status
                == .accepted)
            #expect(try await sent("email_verification") == before + 1)
            try await AuthFixture.verifyEmail(app, client)
            let verified = try await client.call(.post, "/admin/v1/users/\(user)/verification-email", headers: Admin.admin(support))
            #expect(verified.status == .conflict && verified.failure?.id == "already_verified")

            for credential in ["password", "passcode"] {
                let answer = try await client.call(.post, "/admin/v1/users/\(user)/reset-link?credential=\(credential)",
                                                   headers: Admin.admin(support))
                #expect(answer.status == .accepted, "\(credential)")
            }
            let templates = try await app.store.outboxMessages().filter { $0.recipient == "ada@example.com" }.map(\.template)
            #expect(templates.contains("password_reset") && templates.contains("passcode_reset"), "\(templates)")
            let requested = try await app.store.auditEvents(userID: user, limit: 100).filter { $0.type == .resetRequested }
            #expect(requested.map { $0.details["credential"] } == ["password", "passcode"] && requested.allSatisfy { $0.actor == .operator })

            _ = try await AuthFixture.register(client, email: "bob@example.com", device: "device-9")
            let bob = try await Admin.userID(app, "bob@example.com")
            #expect(try await app.store.user(id: bob)?.emailVerified == false)
            #expect(try await client.call(.post, "/admin/v1/users/\(bob)/verify", headers: Admin.admin(support)).status == .noContent)
            #expect(try await app.store.user(id: bob)?.emailVerified == true)
        }
    }

    /// Erasing: support cannot (403); an admin can, and the identity, sessions and the courier's
    /// messages to the address are gone while the audit trail keeps the user id with nothing
    /// more. The trail's guard still refuses any other change.
    @Test(arguments: TestEnvironment.engines)
    func anAdminErasesAUserAndTheTrailKeepsOnlyTheID(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let user = try await Admin.userID(app)
            let (_, support) = try await Admin.key(app, .support)
            let (_, admin) = try await Admin.key(app, .admin)
            let refused = try await client.call(.delete, "/admin/v1/users/\(user)", headers: Admin.admin(support))
            #expect(refused.status == .forbidden && refused.failure?.id == "operator_role_insufficient")
            #expect(try await app.store.user(id: user) != nil)
            #expect(try await app.store.auditEvents(userID: user, limit: 100).contains { !$0.details.isEmpty && $0.type != .operatorCommand })

            #expect(try await client.call(.delete, "/admin/v1/users/\(user)", headers: Admin.admin(admin)).status == .noContent)
            #expect(try await app.store.user(id: user) == nil)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com") == nil)
            #expect(try await app.store.devices(userID: user).isEmpty)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized)
            #expect(try await app.store.outboxMessages().allSatisfy { $0.recipient != "ada@example.com" })
            let events = try await app.store.auditEvents(userID: user, limit: 200)
            #expect(events.contains { $0.type == .userErased && $0.actor == .operator })
            // The operator's own events (the call, the erasure) keep the operator's address.
            for event in events where event.type != .operatorCommand && event.type != .userErased {
                #expect(event.details.isEmpty && event.clientIP == nil && event.deviceID == nil, "\(event) keeps only the id")
            }
            #expect(events.contains { $0.type == .userRegistered }, "the history stays")
            let gone = try await client.call(.delete, "/admin/v1/users/\(user)", headers: Admin.admin(admin))
            #expect(gone.failure?.id == "unknown_user")
            // The same address registers afresh.
            _ = try await AuthFixture.register(client)
        }
    }

    /// The courier's messages by state, newest first and paged, never with their bodies.
    @Test(arguments: TestEnvironment.engines)
    func theCourierPageShowsStatesNotBodies(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            for index in 0..<3 { _ = try await AuthFixture.register(client, email: "user\(index)@example.com", device: "device-\(index)") }
            let (_, viewer) = try await Admin.key(app, .viewer)
            let messages = try await app.store.outboxMessages()
            try await app.store.markDelivered(id: messages[0].id, at: Date())
            let first = try await client.call(.get, "/admin/v1/courier/messages?pageSize=2", headers: Admin.admin(viewer))
            let page = try #require(first.messagePage, "\(first.json)")
            #expect(page.messages.count == 2 && first.headers[AdminRoutes.link]?.contains("rel=\"next\"") == true)
            // The wire shape itself: no message carries a body's field, whatever the schema allows.
            let shown = first.json["messages"] as? [[String: Any]] ?? []
            #expect(shown.count == 2 && shown.allSatisfy { Set($0.keys).isDisjoint(with: ["sealedPayload", "body", "data", "link"]) })
            #expect(!String(decoding: first.data, as: UTF8.self).contains("verify-email"), "no link of a body")
            let token = try #require(page.nextPageToken)
            let second = try await client.call(.get, "/admin/v1/courier/messages?pageSize=2&pageToken=\(token)", headers: Admin.admin(viewer))
            let rest = try #require(second.messagePage, "\(second.json)").messages
            #expect(Set((page.messages + rest).map(\.id)) == Set(messages.map(\.id)))
            let sent = try await client.call(.get, "/admin/v1/courier/messages?state=sent", headers: Admin.admin(viewer))
            #expect(sent.messagePage?.messages.map(\.id) == [messages[0].id])
            let pending = try #require(try await client.call(.get, "/admin/v1/courier/messages?state=pending", headers: Admin.admin(viewer))
                .messagePage).messages
            #expect(pending.count == messages.count - 1)
            #expect(pending.allSatisfy { $0.state == .pending })
        }
    }

    /// An admin imports JSON Lines over HTTP: the per-line report, the users written; support
    /// cannot (403); past `admin.importMaxBytes` it is 413.
    @Test(arguments: TestEnvironment.engines)
    func anAdminImportsOverHTTP(engine: String) async throws {
        try await withServer(engine: engine, configure: { Admin.configure(&$0); $0.admin.importMaxBytes = 4096 }) { app, client in
            let (_, admin) = try await Admin.key(app, .admin)
            let (_, support) = try await Admin.key(app, .support)
            let lines = [ImportTests.line("one@example.com", format: "django-pbkdf2"), "{not json",
                         ImportTests.json(["email": "two@example.com", "firstName": "Two\u{0}", "lastName": "Nul"]),
                         "", ImportTests.line("three@example.com", format: "passlib-scrypt")].joined(separator: "\r\n")
            var headers = Admin.admin(admin)
            headers[.contentType] = "application/x-ndjson"
            let refused = try await client.call(.post, "/admin/v1/users/import", headers: Admin.admin(support).merging(.contentType, "application/x-ndjson"), raw: lines)
            #expect(refused.status == .forbidden)
            let answer = try await client.call(.post, "/admin/v1/users/import", headers: headers, raw: lines)
            #expect(answer.status == .ok, "\(answer.json)")
            let report = try #require(answer.importReport, "\(answer.json)")
            #expect(report.lines == 5 && report.created == 2 && report.failed == 2)
            #expect(report.failures.map(\.line) == [2, 3], "\(report.failures)")
            #expect(try await app.store.user(issuer: "default", emailNormalized: "three@example.com") != nil)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "two@example.com") == nil)
            let events = try await app.store.auditEvents(after: nil, since: nil, limit: 500)
            #expect(events.contains { $0.details["command"] == "admin importUsers" && $0.details["created"] == "2" })

            let large = String(repeating: ImportTests.line("big@example.com", format: "django-pbkdf2") + "\n", count: 20)
            let tooLarge = try await client.call(.post, "/admin/v1/users/import", headers: headers, raw: large)
            #expect(tooLarge.status == .contentTooLarge, "\(tooLarge.json)")
        }
    }

    /// An admin key manages keys over the API: the new key is shown once and works; the list has
    /// no secret; a revoked key is refused at once; support cannot manage keys; names are checked.
    @Test(arguments: TestEnvironment.engines)
    func anAdminManagesKeys(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let (_, admin) = try await Admin.key(app, .admin)
            let (_, support) = try await Admin.key(app, .support)
            let keys = client.admin(admin)
            let created = try await keys.createOperatorKey(body: .json(.init(name: "issuer-backend", role: .viewer, days: 30))).created.body.json
            let key = created.key
            let id = created.operatorKey.id
            #expect(try await client.call(.get, "/admin/v1/users", headers: Admin.admin(key)).status == .ok)
            #expect(try await client.call(.get, "/admin/v1/keys", headers: Admin.admin(key)).status == .forbidden, "a viewer")
            let list = try await client.call(.get, "/admin/v1/keys", headers: Admin.admin(admin))
            #expect(list.decoded(LatchkeyAdminAPI.Components.Schemas.OperatorKeyList.self)?.keys.count == 3 && !String(decoding: list.data, as: UTF8.self).contains(key.suffix(20)) && !String(decoding: list.data, as: UTF8.self).contains("digest"))
            #expect(try await client.call(.post, "/admin/v1/keys", headers: Admin.admin(support),
                                          body: ["name": "x", "role": "admin"]).status == .forbidden, "support cannot make an admin key")
            let refusedRequests: [LatchkeyAdminAPI.Components.Schemas.OperatorKeyRequest] = [
                .init(name: "tab\there", role: .viewer), .init(name: "", role: .viewer), .init(name: "ok", role: .viewer, days: 400)]
            for request in refusedRequests {
                let bad = try await keys.createOperatorKey(body: .json(request))
                #expect((try? bad.badRequest) != nil, "\(request) \(bad)")
            }
            #expect(try await client.call(.delete, "/admin/v1/keys/\(id)", headers: Admin.admin(admin)).status == .noContent)
            #expect(try await client.call(.get, "/admin/v1/users", headers: Admin.admin(key)).status == .unauthorized)
            #expect(try await client.call(.delete, "/admin/v1/keys/\(id)", headers: Admin.admin(admin)).failure?.id == "unknown_operator_key")
        }
    }

    /// On the public port (`admin.onPublicPort`) an admin route asked with another method is 405
    /// with `Allow`, as on the admin listener.
    @Test func aWrongMethodIs405OnThePublicPortToo() async throws {
        try await withServer(configure: Admin.configure) { _, client in
            let answer = try await client.call(.put, "/admin/v1/users", headers: [:])
            #expect(answer.status == .methodNotAllowed && answer.headers[.allow] == "GET", "\(answer.status)")
            // A literal segment is not a user id: only the import answers there.
            let literal = try await client.call(.get, "/admin/v1/users/import", headers: [:])
            #expect(literal.status == .methodNotAllowed && literal.headers[.allow] == "POST", "\(literal.headers)")
        }
    }

    /// Attack: an encoded slash that moves the path check off the real parameter, to get a NUL
    /// to PostgreSQL (a 500). Every such spelling is a 400 naming the parameter.
    @Test(arguments: TestEnvironment.engines)
    func encodedSlashesCannotSmuggleANULPastThePathCheck(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let user = try await Admin.userID(app)
            let (_, support) = try await Admin.key(app, .support)
            for (method, path, field) in [(HTTPRequest.Method.post, "/admin/v1/users/\(user)/devices/x%2F%00/suspend", "deviceId"),
                                          (.delete, "/admin/v1/users/\(user)/sessions/0123456789abcdef%2F%00", "sessionId"),
                                          (.get, "/admin/v1/users/a%2F%00", "userId")] {
                let answer = try await client.call(method, path, headers: Admin.admin(support))
                #expect(answer.status == .badRequest && answer.failure?.field == field, "\(path): \(answer.status) \(answer.json)")
            }
            let encoded = try await client.call(.get, "/admin/v1/users/a%2500", headers: Admin.admin(support))
            #expect(encoded.status == .notFound, "a %25 is a percent sign, decoded once")
        }
    }

    /// Attack: a NUL in an imported line's name, to fail the whole batch on PostgreSQL (a 500);
    /// it is that line's failure, and the other lines are written.
    @Test(arguments: TestEnvironment.engines)
    func aNULInAnImportedLineIsThatLinesFailure(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let (_, admin) = try await Admin.key(app, .admin)
            var nul = try #require(try JSONSerialization.jsonObject(with: Data(ImportTests.line("nul@example.com", format: "django-pbkdf2").utf8))
                as? [String: Any])
            nul["firstName"] = "A\u{0}"
            let lines = [ImportTests.line("before@example.com", format: "django-pbkdf2"), ImportTests.json(nul),
                         ImportTests.line("after@example.com", format: "django-pbkdf2")].joined(separator: "\n")
            let answer = try await client.call(.post, "/admin/v1/users/import",
                                               headers: Admin.admin(admin).merging(.contentType, "application/x-ndjson"), raw: lines)
            #expect(answer.status == .ok, "\(answer.status) \(answer.json)")
            let report = try #require(answer.importReport, "\(answer.json)")
            #expect(report.created == 2 && report.failures.first?.line == 2, "\(answer.json)")
            #expect(try await app.store.user(issuer: "default", emailNormalized: "after@example.com") != nil)
        }
    }

    /// Attack: ending a session that is not live, or one that has expired, must neither succeed
    /// (204) nor leave a successful event: both are 404 with a failed event.
    @Test(arguments: TestEnvironment.engines)
    func endingASessionThatIsNotLiveIsAFailedEvent(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: Admin.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let user = try await Admin.userID(app)
            let (_, support) = try await Admin.key(app, .support, clock: clock)
            let unknown = try await client.call(.delete, "/admin/v1/users/\(user)/sessions/0000000000000000", headers: Admin.admin(support))
            #expect(unknown.failure?.id == "unknown_session")
            let events = try await app.store.auditEvents(userID: user, limit: 100).filter { $0.details["command"] == "admin endSession" }
            #expect(events.map(\.outcome) == [.failure] && events.first?.details["error"] == "unknown_session", "\(events)")
            clock.advance(TimeInterval(app.configuration.issuer.sessions.idleTimeoutSeconds + 1))
            let idle = try await client.call(.delete, "/admin/v1/users/\(user)/sessions/\(SecureRandom.digest(session).prefix(16))",
                                             headers: Admin.admin(support))
            #expect(idle.failure?.id == "unknown_session", "an idle session is not live")
        }
    }

    /// Attack: an `Accept` the answer cannot meet, which must not make a key whose secret is never
    /// shown. It is refused first, and nothing is made.
    @Test(arguments: TestEnvironment.engines)
    func anUnacceptableAcceptChangesNothing(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let (_, admin) = try await Admin.key(app, .admin)
            let answer = try await client.call(.post, "/admin/v1/keys", headers: Admin.admin(admin).merging(.accept, "text/plain"),
                                               body: ["name": "never-shown", "role": "admin"])
            #expect(answer.status.code >= 400)
            #expect(try await app.store.operatorKeys().allSatisfy { $0.name != "never-shown" }, "no key whose secret nobody saw")
        }
    }

    /// Erasing leaves no courier message to an address the user was changing to, and a phone-only
    /// wallet's empty address gets no verification or reset email.
    @Test(arguments: TestEnvironment.engines)
    func erasureLeavesNoAddressAndPhoneOnlyWalletsGetNoEmail(engine: String) async throws {
        try await withServer(engine: engine, configure: Admin.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let change = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                               body: ["email": "ada.new@example.com"])
            #expect(change.status.code < 300, "\(change.json)")
            #expect(try await app.store.outboxMessages().contains { $0.recipient == "ada.new@example.com" })
            let user = try await Admin.userID(app)
            let (_, admin) = try await Admin.key(app, .admin)
            #expect(try await client.call(.delete, "/admin/v1/users/\(user)", headers: Admin.admin(admin)).status == .noContent)
            #expect(try await app.store.outboxMessages().allSatisfy { !$0.recipient.hasPrefix("ada") }, "no message to either address")
        }
    }

    /// A session from `device` after the MFA answer that links it.
    static func linkedSession(_ client: any TestClientProtocol, _ login: LatchkeyAPI.Components.Schemas.LoginResponse, device: String) async throws -> String {
        if let session = login.sessionToken { return session }
        let token = try #require(login.mfaToken)
        let question = try #require(token.mfaSecretQuestion)
        let linked = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: device), body: [
            "challengeToken": token.challengeToken, "mfaSecretAnswer": try #require(AuthFixture.answers[question])])
        return try #require(linked.login?.sessionToken)
    }
}

extension HTTPFields {
    func merging(_ name: HTTPField.Name, _ value: String) -> HTTPFields {
        var fields = self
        fields[name] = value
        return fields
    }
}
