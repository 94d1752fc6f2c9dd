import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// A stranger's reset requests neither void the owner's link nor spend the
/// owner's emails.
@Suite struct ResetFloodTests {
    /// App headers of a client at `address` behind the trusted proxy (the test client, 127.0.0.1).
    static func from(_ address: String) -> HTTPFields {
        var headers = appHeaders()
        headers[HTTPField.Name("X-Forwarded-For")!] = address
        return headers
    }

    /// Attack: three reset requests an hour for the victim's address (any case), to void the
    /// owner's live link and spend the address's budget, which password and PIN resets share, so
    /// that an owner who lost their phone cannot reset for as long as the stranger keeps on.
    @Test(arguments: TestEnvironment.engines)
    func aStrangersFloodLeavesTheOwnersLinkAndBudget(engine: String) async throws {
        try await withServer(engine: engine, live: true, configure: { $0.http.trustedProxies = ["127.0.0.0/8", "::1/128"] }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let owner = Self.from("198.51.100.20")
            let link = try await Self.requestLink(app, client, headers: owner)

            // The stranger, from another address, asks again and again in every spelling.
            var refused = 0
            for (index, email) in ["ADA@example.com", "ada@EXAMPLE.com", "Ada@Example.Com", "ada@example.com", "aDa@example.com"]
                .enumerated() {
                let kind = index.isMultiple(of: 2) ? "password" : "passcode"
                let answer = try await client.call(.post, "/v1/enrollment/\(kind)-reset", headers: Self.from("203.0.113.66"),
                                                   body: ["email": email])
                if answer.status == .tooManyRequests { refused += 1 }
            }
            #expect(refused == 2, "the stranger's own limit: 3 an hour from one address")

            // The owner's link still opens its question, and the owner can ask for another.
            let browser = PortalBrowser(client)
            let page = try await browser.get(link)
            #expect(page.status == .ok, "the owner's link was voided: \(page.status)")
            let another = try await Self.requestLink(app, client, headers: owner)
            #expect(another != link)
            // Either link completes the reset; the other is used up by it.
            let form = try await ResetFixture.grantForm(browser, link)
            let done = try await browser.post("/reset/credential", ["grant": form.hidden("grant") ?? "", "csrf": form.hidden("csrf") ?? "",
                                                                    "new": "brand-new-pass-7", "confirm": "brand-new-pass-7"])
            #expect(done.status == .ok, "\(done.html)")
            #expect(try await browser.get(another).status == .gone)
        }
    }

    /// Many strangers together meet the cap for all clients (20 an hour): the address is not
    /// flooded without bound.
    @Test func allClientsTogetherHaveACap() async throws {
        try await withServer(live: true, configure: { $0.http.trustedProxies = ["127.0.0.0/8", "::1/128"] }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<24 {
                statuses.append(try await client.call(.post, "/v1/enrollment/password-reset", headers: Self.from("203.0.113.\(index)"),
                                                      body: ["email": "ada@example.com"]).status)
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == .ok })
            #expect(statuses.suffix(4).allSatisfy { $0 == .tooManyRequests })
        }
    }

    /// Requests a password reset with `headers` and answers the portal path of the emailed link.
    static func requestLink(_ app: LatchkeyApplication, _ client: any TestClientProtocol, headers: HTTPFields) async throws -> String {
        let earlier = Set(try await app.store.outboxMessages().map(\.id))
        let answer = try await client.call(.post, "/v1/enrollment/password-reset", headers: headers, body: ["email": "ada@example.com"])
        #expect(answer.status == .ok, "\(answer.json)")
        let row = try #require(try await app.store.outboxMessages().first { !earlier.contains($0.id) && $0.template == "password_reset" })
        let link = try #require(app.cipher.open(row)?.data["link"])
        return String(link[link.range(of: "/reset?")!.lowerBound...])
    }
}
