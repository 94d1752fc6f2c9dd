import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Operators and a customer's second factors: a viewer lists them, support removes a lost one
/// (audited, the customer notified); the last-factor rule does not bind support.
@Suite(.serialized) struct AdminFactorTests {
    typealias Admin = AdminAPITests

    @Test(arguments: TestEnvironment.engines)
    func supportRemovesALostFactor(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            Admin.configure(&$0)
            // Only recovery codes answer the prompt: they are the wallet's last prompt factor.
            $0.issuer.factors.unknownDevice = [.recoveryCode]
        }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.post, "/v1/factors/recovery-codes", headers: appHeaders(session: session)).status == .created)
            let removedByCustomer = try await client.call(.delete, "/v1/factors/recovery-codes", headers: appHeaders(session: session))
            #expect(removedByCustomer.status == .conflict && removedByCustomer.failure?.id == "last_factor", "\(removedByCustomer.json)")
            let user = try await Admin.userID(app)
            let (_, viewer) = try await Admin.key(app, .viewer)
            let (support, supportKey) = try await Admin.key(app, .support)
            let path = "/admin/v1/users/\(user)/factors"

            let listed = try await client.call(.get, path, headers: Admin.admin(viewer))
            #expect(listed.status == .ok, "\(listed.json)")
            let factors = try #require(listed.json["factors"] as? [[String: Any]])
            #expect(factors.map { $0["id"] as? String } == ["questions", "recovery-codes"])
            #expect(factors.last?["remaining"] as? Int == 10)

            let byViewer = try await client.call(.delete, path + "/recovery-codes", headers: Admin.admin(viewer))
            #expect(byViewer.status == .forbidden, "a viewer only reads: \(byViewer.json)")
            func notices() async throws -> Int {
                try await app.store.outboxMessages().filter { $0.recipient == "ada@example.com" && $0.template == "security_notice" }.count
            }
            let before = try await notices()
            #expect(try await client.call(.delete, path + "/recovery-codes", headers: Admin.admin(supportKey)).status == .noContent)
            #expect(try await notices() == before + 1, "the customer is told")
            let after = try #require(try await client.call(.get, path, headers: Admin.admin(viewer)).json["factors"] as? [[String: Any]])
            #expect(after.map { $0["id"] as? String } == ["questions"])

            for missing in ["recovery-codes", "totp", "pk_unknown", "questions"] {
                let refused = try await client.call(.delete, path + "/" + missing, headers: Admin.admin(supportKey))
                #expect(refused.status == .notFound && refused.failure?.id == "factor_not_enrolled" && refused.failure?.field == "factorId",
                        "\(missing): \(refused.json)")
            }
            let unknownUser = try await client.call(.get, "/admin/v1/users/nobody/factors", headers: Admin.admin(viewer))
            #expect(unknownUser.status == .notFound)

            let events = try await app.store.auditEvents(userID: user, limit: 200)
            let removal = try #require(events.first { $0.type == .factorRemoved && $0.actor == .operator })
            #expect(removal.reason == "removed_by_operator" && removal.details["kind"] == "recoveryCode")
            let commands = events.filter { $0.type == .operatorCommand && $0.details["operatorKey"] == support.id }
            #expect(commands.compactMap { $0.details["command"] }.contains("admin removeUserFactor"))
        }
    }

    /// The console's user page lists the factors; support removes one behind its confirmation
    /// (a CSRF'd form), the customer is told; a viewer sees them without a remove link.
    @Test(arguments: TestEnvironment.engines)
    func theConsoleListsAndRemovesFactors(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: Admin.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.post, "/v1/factors/recovery-codes", headers: appHeaders(session: session)).status == .created)
            let user = try await Admin.userID(app)
            let browser = ConsoleBrowser(client)
            _ = try await ConsoleTests.setUp(app, browser, clock: clock, role: .support)

            let page = try await browser.get("/console/users/\(user)")
            #expect(page.html.contains("<code>questions</code>") && page.html.contains("10 unused"), "\(page.html)")
            #expect(page.href(id: "remove-questions") == nil, "the questions are not support's to remove")
            let confirm = try await browser.get(try #require(page.href(id: "remove-recovery-codes"), "\(page.html)"))
            #expect(confirm.text(id: "question")?.contains("recovery-codes") == true, "\(confirm.html)")
            let done = try await browser.submit(confirm)
            #expect(done.status == .seeOther, "\(done.status) \(done.html)")
            let after = try await browser.get(try #require(done.headers[.location]))
            #expect(!after.html.contains("<code>recovery-codes</code>") && after.text(id: "notice") == "Done: remove.", "\(after.html)")
            let notices = try await app.store.outboxMessages().filter { $0.recipient == "ada@example.com" && $0.template == "security_notice" }
            #expect(notices.compactMap { app.cipher.open($0)?.data["change"] }.filter { $0 == "recovery codes" }.count == 2,
                    "made, then removed by support")
            let events = try await app.store.auditEvents(userID: user, limit: 200)
            #expect(events.contains { $0.type == .factorRemoved && $0.reason == "removed_by_operator" && $0.details["via"] == nil })
            #expect(events.contains { $0.type == .operatorCommand && $0.details["command"] == "admin removeUserFactor"
                && $0.details["via"] == "console" })
        }
    }
}
