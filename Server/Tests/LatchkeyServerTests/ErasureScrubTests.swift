import Foundation
import HTTPTypes
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// An erasure through the admin API leaves nothing of the person in the SQLite files: the
/// database, its WAL and its shared-memory index (PostgreSQL needs a VACUUM, docs/operations.md).
@Suite struct ErasureScrubTests {
    /// Attack: a copy of the database file taken after an erasure (a backup, a stolen disk) still
    /// held the erased user's address, names and password hash in freed pages and in the WAL.
    @Test func anErasedUserIsNotLeftInTheDatabaseFiles() async throws {
        try await withServer(engine: "sqlite", configure: AdminAPITests.configure) { app, client in
            let email = "quokka.zanzibar@example.com"
            let registered = try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: "device-1"),
                                                   body: registrationBody(email: email) { profile in
                                                       profile["firstName"] = "Quetzalina"
                                                       profile["lastName"] = "Sprocketworth"
                                                   })
            #expect(registered.status == .created, "\(registered.json)")
            try await AuthFixture.verifyEmail(app, client, email: email)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: email))
            let hash = try #require(user.passwordHash)
            let distinctive = [email, "Quetzalina", "Sprocketworth", hash]
            func held() async throws -> [String] {
                var held: [String] = []
                for text in distinctive where try await AuditIdentifierTests.databaseHolds(app, text) { held.append(text) }
                return held
            }
            #expect(try await held().count == distinctive.count, "the files hold the user before the erasure")

            let (_, admin) = try await AdminAPITests.key(app, .admin)
            let erased = try await client.call(.delete, "/admin/v1/users/\(user.id)", headers: AdminAPITests.admin(admin))
            #expect(erased.status == .noContent, "\(erased.json)")
            #expect(try await app.store.user(id: user.id) == nil)
            let left = try await held()
            #expect(left.isEmpty, "nothing of the erased user is left in the database, its WAL or its index: \(left)")
        }
    }
}
