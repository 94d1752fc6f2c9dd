import Foundation
import HTTPTypes
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The admin API's pages of users stay what they were when users register in between, as the
/// admin document promises, on both engines.
@Suite struct StablePageTests {
    static func ids(_ answer: JSONAnswer) -> [String] {
        answer.userPage?.users.map(\.id) ?? []
    }

    /// Attack: users registered during a listing in the same second as the page's last user, with
    /// ids that sort before it, pushed the next page's users onto the page after (a user an
    /// operator pages through is skipped on the page they expected, or shown twice to a client
    /// that reads by offset).
    @Test(arguments: TestEnvironment.engines)
    func usersRegisteredDuringAListingDoNotShiftTheNextPage(engine: String) async throws {
        try await withServer(engine: engine, configure: AdminAPITests.configure) { app, client in
            // Six users of one import batch: one creation second.
            let lines = (0..<6).map { ImportNoticeTests.line("user\($0)@example.com") }
            #expect(try await ImportTests.importing(app, lines).report.created == 6)
            let headers = AdminAPITests.admin(try await AdminAPITests.key(app, .viewer).1)
            let before = Self.ids(try await client.call(.get, "/admin/v1/users?pageSize=200", headers: headers))
            #expect(before.count == 6)

            let first = try await client.call(.get, "/admin/v1/users?pageSize=3", headers: headers)
            #expect(Self.ids(first) == Array(before.prefix(3)))
            let token = try #require(first.userPage?.nextPageToken)
            let last = try #require(Self.ids(first).last)
            let boundary = try #require(try await app.store.user(id: last))

            // Registered meanwhile, in the boundary's second, each id a prefix of the boundary's
            // (so it sorts just before it whatever the collation).
            for cut in 1...3 {
                var user = boundary
                user.id = String(boundary.id.dropLast(cut))
                user.email = "late\(cut)@example.com"
                user.emailNormalized = user.email
                try await app.store.createUser(user, answers: [], tokens: [], messages: [], replacingPending: false)
            }

            let second = try await client.call(.get, "/admin/v1/users?pageSize=3&pageToken=\(token)", headers: headers)
            #expect(second.status == .ok, "\(second.json)")
            #expect(Self.ids(second) == Array(before.suffix(3)), "page 2 is the users after page 1, none skipped or pushed on")
            let all = Self.ids(try await client.call(.get, "/admin/v1/users?pageSize=200", headers: headers))
            #expect(Array(all.prefix(3)).allSatisfy { $0.count < 36 }, "the users registered last are listed first: \(all)")
        }
    }
}
