import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The console's user page offers only the actions that would change something for the user as
/// it is (the same detail the admin API's reasons a login fails come from), on both engines.
@Suite struct ConsoleActionTests {
    /// The user page's action links, by name (`action-<name>`).
    static func actions(_ page: PortalPage) -> Set<String> {
        var names = Set<String>(), rest = page.html[...]
        while let range = rest.range(of: "id=\"action-") {
            names.insert(String(rest[range.upperBound...].prefix { $0 != "\"" }))
            rest = rest[range.upperBound...]
        }
        return names
    }

    @Test(arguments: TestEnvironment.engines)
    func theUserPageOffersWhatApplies(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let user = try await AdminAPITests.userID(app)
            let browser = ConsoleBrowser(client)
            _ = try await ConsoleTests.setUp(app, browser, clock: clock, role: .admin)

            // Active, verified, nothing locked, a live session: nothing to unlock, reactivate or verify.
            let healthy = Self.actions(try await browser.get("/console/users/\(user)"))
            #expect(healthy.isDisjoint(with: ["unlock", "reactivate", "resendVerification", "markVerified"]), "\(healthy)")
            #expect(healthy.isSuperset(of: ["lock", "deactivate", "endSessions", "passwordReset", "passcodeReset", "erase"]), "\(healthy)")

            // Locked by an operator: unlock, no second lock.
            let (_, support) = try await AdminAPITests.key(app, .support)
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/lock", headers: AdminAPITests.admin(support)).status == .noContent)
            let locked = Self.actions(try await browser.get("/console/users/\(user)"))
            #expect(locked.contains("unlock") && !locked.contains("lock"), "\(locked)")

            // Deactivated, sessions ended: reactivate, no deactivation, nothing to end.
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/deactivate", headers: AdminAPITests.admin(support)).status
                == .noContent)
            let deactivated = Self.actions(try await browser.get("/console/users/\(user)"))
            #expect(deactivated.contains("reactivate") && !deactivated.contains("deactivate") && !deactivated.contains("endSessions"),
                    "\(deactivated)")

            // An address not verified: the verification actions.
            _ = try await AuthFixture.register(client, email: "grace@example.com", device: "device-2")
            let grace = try await AdminAPITests.userID(app, "grace@example.com")
            let unverified = Self.actions(try await browser.get("/console/users/\(grace)"))
            #expect(unverified.isSuperset(of: ["resendVerification", "markVerified"]) && !unverified.contains("unlock"), "\(unverified)")
        }
    }
}
