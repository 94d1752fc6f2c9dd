import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Changes that guard the account need a privileged session: a login within
/// `issuer.sessions.privilegedSeconds` (Kratos's `privileged_session_max_age`).
@Suite struct PrivilegedSessionTests {
    /// Attack: with only a session (of any age), the MFA answers were replaced, the email moved,
    /// a device token made and a device unlinked. Past the privileged window each of these answers
    /// 403 `session_refresh_required` and changes nothing; a fresh login may make them.
    @Test(arguments: TestEnvironment.engines)
    func anOldSessionCannotChangeWhatGuardsTheAccount(engine: String) async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 9_000_000))
        try await withServer(engine: engine, clock: clock, configure: { $0.issuer.sessions.idleTimeoutSeconds = 7200 }) { app, client in
            let stolen = try await AuthFixture.enrolledSession(app, client)
            clock.advance(901)
            let headers = appHeaders(session: stolen)
            #expect(try await client.call(.get, "/v1/profile", headers: headers).status == .ok, "everyday calls go on")
            let changes: [(HTTPRequest.Method, String, [String: Any])] = [
                (.put, "/v1/profile/mfa-answers", ["mfaAnswers": ["What was the name of your first pet?": "Mallory",
                                                                  "In what city were you born?": "Mallory",
                                                                  "What is your mother's maiden name?": "Mallory"]]),
                (.patch, "/v1/profile", ["email": "mallory@example.com"]),
                (.put, "/v1/profile/password", ["oldPassword": AuthFixture.password, "newPassword": "taken-over-42",
                                                "confirmNewPassword": "taken-over-42"]),
                (.put, "/v1/profile/passcode", ["oldPasscode": "314159", "newPasscode": "271828", "confirmNewPasscode": "271828"]),
                (.post, "/v1/auth/device-token", ["username": "ada@example.com", "password": AuthFixture.password]),
                (.delete, "/v1/devices/device-1", [:]),
            ]
            for (method, path, body) in changes {
                let answer = try await client.call(method, path, headers: headers, body: body.isEmpty ? nil : body)
                #expect(answer.status == .forbidden && answer.failure?.id == "session_refresh_required"
                        && answer.errorCode == 403, "\(method) \(path): \(answer.json)")
            }
            #expect(try await client.call(.patch, "/v1/profile", headers: headers, body: ["firstName": "Ada B."]).status == .ok,
                    "a name is an everyday edit")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(try await app.store.mfaAnswers(userID: user.id).count == 3)
            #expect(!(try await app.store.outboxMessages().contains { $0.recipient == "mallory@example.com" }))
            #expect(try await app.store.devices(userID: user.id).map(\.deviceID) == ["device-1"])

            let fresh = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let changed = try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: fresh),
                                                body: ["oldPasscode": "314159", "newPasscode": "271828", "confirmNewPasscode": "271828"])
            #expect(changed.status == .ok, "a fresh login may: \(changed.json)")
        }
    }

    /// Each change that guards the account sends the owner a security notice, in the change's
    /// transaction; a refused one sends none.
    @Test(arguments: TestEnvironment.engines)
    func eachChangeNoticesTheOwner(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let headers = appHeaders(session: session)
            func notices() async throws -> [String] {
                try await app.store.outboxMessages().filter { $0.template == "security_notice" && $0.recipient == "ada@example.com" }
                    .compactMap { app.cipher.open($0)?.data["change"] }
            }
            let answers = ["What was the name of your first pet?": "Rex2", "In what city were you born?": "Paris",
                           "What is your mother's maiden name?": "Smith"]
            #expect(try await client.call(.put, "/v1/profile/passcode", headers: headers,
                                          body: ["oldPasscode": "999999", "newPasscode": "271828", "confirmNewPasscode": "271828"])
                        .errorCode == 416)
            #expect(try await notices().isEmpty, "a refused change sends nothing")
            #expect(try await client.call(.put, "/v1/profile/mfa-answers", headers: headers, body: ["mfaAnswers": answers]).status == .ok)
            #expect(try await client.call(.patch, "/v1/profile", headers: headers, body: ["mfaAnswers": answers]).status == .ok)
            #expect(try await client.call(.put, "/v1/profile/passcode", headers: headers,
                                          body: ["oldPasscode": "314159", "newPasscode": "271828", "confirmNewPasscode": "271828"])
                        .status == .ok)
            #expect(try await client.call(.post, "/v1/auth/device-token", headers: headers,
                                          body: ["username": "ada@example.com", "password": AuthFixture.password]).status == .created)
            #expect(try await client.call(.put, "/v1/profile/password", headers: headers,
                                          body: ["oldPassword": AuthFixture.password, "newPassword": "renewed-pass-8",
                                                 "confirmNewPassword": "renewed-pass-8"]).status == .ok)
            #expect(try await client.call(.delete, "/v1/devices/device-1", headers: headers).status == .noContent)
            #expect(try await notices().sorted() == ["PIN", "device sign-in token", "list of linked devices", "password",
                                                     "security questions", "security questions"])
        }
    }

    /// Attack: the email is moved to another address behind the owner's back. The
    /// old address gets a link that, for 7 days, puts it back and signs everyone out, even after the
    /// new address was verified; before that, it voids the pending change.
    @Test(arguments: TestEnvironment.engines)
    func theOldAddressCanPutAnEmailChangeBack(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            // The outbox orders by the second a message was created, so two notices to one address
            // in one second come in either order: take the one not opened yet.
            var opened: Set<String> = []
            func link(_ template: String, to recipient: String) async throws -> String {
                let links = try await app.store.outboxMessages().filter { $0.template == template && $0.recipient == recipient }
                    .compactMap { app.cipher.open($0)?.data["link"] }
                    .map { String($0[$0.range(of: "/", options: [], range: $0.index($0.startIndex, offsetBy: 8)..<$0.endIndex)!.lowerBound...]) }
                let fresh = try #require(links.first { !opened.contains($0) })
                opened.insert(fresh)
                return fresh
            }
            // Opens a link and confirms it on its page, as its owner does (opening alone changes nothing).
            func open(_ path: String) async throws -> HTTPResponse.Status { try await EmailLink.follow(client, path).status }
            #expect(try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                          body: ["email": "mallory@example.com"]).status == .ok)
            #expect(try await open(try await link("email_change_verification", to: "mallory@example.com")) == .ok)
            #expect(try await AuthFixture.passwordLogin(client, email: "mallory@example.com").login?.sessionToken != nil)

            #expect(try await open(try await link("email_change_notice", to: "ada@example.com")) == .ok)
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .unauthorized,
                    "everyone is signed out")
            #expect(try await AuthFixture.passwordLogin(client, email: "mallory@example.com").errorCode == 401)
            let again = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let profile = try await client.call(.get, "/v1/profile", headers: appHeaders(session: again))
            #expect(profile.decoded(Customer.self)?.username == "ada@example.com")

            // Before the new address is verified, putting it back voids the pending change.
            #expect(try await client.call(.patch, "/v1/profile", headers: appHeaders(session: again),
                                          body: ["email": "eve@example.com"]).status == .ok)
            let pending = try await link("email_change_verification", to: "eve@example.com")
            #expect(try await open(try await link("email_change_notice", to: "ada@example.com")) == .ok)
            #expect(try await open(pending) == .badRequest, "the pending change is void")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
        }
    }

    /// A revert link works once, and not when another wallet holds the old address by then.
    @Test func aRevertLinkWorksOnceAndNotForATakenAddress() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                          body: ["email": "new@example.com"]).status == .ok)
            func path(_ template: String, _ recipient: String) async throws -> String {
                let row = try #require(try await app.store.outboxMessages().last { $0.template == template && $0.recipient == recipient })
                let link = try #require(app.cipher.open(row)?.data["link"])
                return String(link[try #require(link.range(of: "/verify-email") ?? link.range(of: "/revert-email")).lowerBound...])
            }
            func open(_ path: String) async throws -> HTTPResponse.Status { try await EmailLink.follow(client, path).status }
            let revert = try await path("email_change_notice", "ada@example.com")
            #expect(try await open(try await path("email_change_verification", "new@example.com")) == .ok)
            _ = try await AuthFixture.register(client, email: "ada@example.com", device: "device-9")
            #expect(try await open(revert) == .conflict, "the old address belongs to another wallet now")
            #expect(try await open(revert) == .badRequest, "the link was used")
        }
    }
}

