import Foundation
import HTTPTypes
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// What the audit trail keeps of a refused login's identifier, and of a call refused for its role,
/// on both engines.
@Suite struct AuditIdentifierTests {
    /// Whether the database holds `text`: anywhere in the SQLite file, its WAL and its shared-memory
    /// index, or (PostgreSQL) in the audit trail.
    static func databaseHolds(_ app: LatchkeyApplication, _ text: String) async throws -> Bool {
        let database = app.configuration.database
        guard database.hasPrefix("sqlite:") else {
            let events = try await app.store.auditEvents(after: nil, since: nil, limit: 10_000)
            return String(describing: events).contains(text)
        }
        let path = String(database.dropFirst("sqlite:".count))
        return [path, path + "-wal", path + "-shm"].contains { file in
            guard let bytes = FileManager.default.contents(atPath: file) else { return false }
            return bytes.range(of: Data(text.utf8)) != nil
        }
    }

    /// Attack: a password shaped like an address (`P@ssw0rd.1` passes the address syntax) typed
    /// into the username field is kept as a digest too: only a domain ending in letters is an address.
    @Test(arguments: TestEnvironment.engines)
    func aPasswordShapedLikeAnAddressIsNotRecorded(engine: String) async throws {
        try await withServer(engine: engine, configure: AdminAPITests.configure) { app, client in
            for secret in ["P@ssw0rd.1", "Winter@2026.x1"] {
                let answer = try await AuthFixture.passwordLogin(client, email: secret, password: "whatever-1")
                #expect(answer.status != .ok && answer.status != .internalServerError, "\(answer.json)")
                #expect(try await !Self.databaseHolds(app, secret.lowercased()), "\(secret) is nowhere in the database")
            }
        }
    }

    /// Attack: a password typed into the username field of the wallet's login and of the
    /// Kratos-compatible login is not kept in the trail that every viewer key reads; an address or a
    /// phone number that names no wallet still is, as typed (operators look for it).
    @Test(arguments: TestEnvironment.engines)
    func aSecretTypedAsTheIdentifierIsNotRecorded(engine: String) async throws {
        try await withServer(engine: engine, configure: AdminAPITests.configure) { app, client in
            let (_, viewer) = try await AdminAPITests.key(app, .viewer)
            let secret = "hunter2-Secret!"
            for username in [secret, "nobody@example.com"] {
                let answer = try await AuthFixture.passwordLogin(client, email: username, password: "whatever-1")
                #expect(answer.status != .ok && answer.status != .internalServerError, "\(answer.json)")
            }
            for identifier in [secret, "+4915112345678"] {
                let flow = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:])
                    .decoded(Components.Schemas.SelfServiceFlow.self)?.id)
                let answer = try await client.call(.post, "/a/self-service/login?flow=\(flow)", headers: SignupFixture.json,
                                                   body: ["method": "password", "identifier": identifier, "password": "whatever-1"])
                #expect(answer.status != .ok && answer.status != .internalServerError, "\(answer.json)")
            }

            let page = try await client.call(.get, "/admin/v1/events?type=login.failed", headers: AdminAPITests.admin(viewer))
            #expect(page.status == .ok)
            // As typed, and as an address is compared (lower-cased).
            for form in [secret, secret.lowercased()] {
                #expect(!String(decoding: page.data, as: UTF8.self).contains(form), "a viewer key does not read the secret")
                #expect(try await !Self.databaseHolds(app, form), "nor is it anywhere in the database")
            }

            let identifiers = try #require(page.eventPage, "\(page.json)").events.compactMap { $0.details.additionalProperties["identifier"] }
            #expect(identifiers.contains("nobody@example.com") && identifiers.contains("+4915112345678"),
                    "addresses and numbers are kept as typed: \(identifiers)")
            let digests = identifiers.filter { $0.hasPrefix("identifier:") }
            #expect(digests.count == 2 && Set(digests).count == 1,
                    "the secret is a keyed digest, the same from both logins, so attempts still correlate: \(identifiers)")
        }
    }

    /// A call refused for its role is recorded with the reason the documents give (`refused`: the
    /// key's role) and the user it was about, so it is among that user's events.
    @Test(arguments: TestEnvironment.engines)
    func aRefusedRoleIsAmongTheUsersEvents(engine: String) async throws {
        try await withServer(engine: engine, configure: AdminAPITests.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let user = try await AdminAPITests.userID(app)
            let (viewerKey, viewer) = try await AdminAPITests.key(app, .viewer)
            let (_, admin) = try await AdminAPITests.key(app, .admin)
            let refused = try await client.call(.post, "/admin/v1/users/\(user)/lock", headers: AdminAPITests.admin(viewer))
            #expect(refused.status == .forbidden && refused.failure?.id == "operator_role_insufficient")

            let page = try await client.call(.get, "/admin/v1/events?userId=\(user)", headers: AdminAPITests.admin(admin))
            let events = try #require(page.eventPage, "\(page.json)").events
            let refusal = events.filter { $0.details.additionalProperties["command"] == "admin lockUser" }
            #expect(refusal.count == 1, "the refusal is among the user's events: \(events)")
            let details = try #require(refusal.first?.details.additionalProperties)
            #expect(details["refused"] == "viewer" && details["operatorKey"] == viewerKey.id, "\(details)")
            #expect(refusal.first?.outcome == .failure && refusal.first?.userId == user)

            let latest = try await client.admin(admin).user(user).events
            #expect(latest.contains { $0.details.additionalProperties["refused"] == "viewer" }, "and among its latest events")

            // A refused call about nobody (an unknown id) names the id asked for, and no user.
            let unknown = try await client.call(.post, "/admin/v1/users/no-such-user/lock", headers: AdminAPITests.admin(viewer))
            #expect(unknown.status == .forbidden)
            let all = try await app.store.auditEvents(after: nil, since: nil, limit: 1000)
            #expect(all.contains { $0.userID == nil && $0.details["userId"] == "no-such-user" && $0.details["refused"] == "viewer" })
        }
    }
}
