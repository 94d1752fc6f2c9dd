import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import Testing

/// Attack: mail scanners and link previewers open the links in emails. Were opening a link to
/// act, the email-change notice's revert link would put the old address back and sign everyone
/// out, and a verification link would verify the address (and move the login of an email change),
/// with no one pressing anything. Opening a link only shows what it will do; a form post with
/// the CSRF cookie and field does it.
@Suite struct EmailLinkConfirmationTests {
    /// A scanner's or a forger's post: no cookie unless given, fields as given.
    static func post(_ client: any TestClientProtocol, _ path: String, _ body: String, cookie: String? = nil) async throws
        -> HTTPResponse.Status {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = "latchkey_csrf=\(cookie)" }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)) { $0.status }
    }

    static func token(of path: String) -> String { String(path[path.range(of: "token=")!.upperBound...]) }

    @Test(arguments: TestEnvironment.engines)
    func openingTheRevertLinkChangesNothingUntilTheFormIsPosted(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                          body: ["email": "new@example.com"]).status == .ok)
            let verified = try await EmailLink.follow(client, try await EmailLink.path(app, "email_change_verification",
                                                                                       to: "new@example.com"))
            #expect(verified.status == .ok && verified.text(id: "title") == "Email verified", "\(verified.html)")
            let revert = try await EmailLink.path(app, "email_change_notice", to: "ada@example.com")

            // The email change stands: the new address logs in, the old does not, the session works.
            func nothingChanged(_ comment: Comment) async throws {
                #expect(try await AuthFixture.passwordLogin(client, email: "new@example.com").login?.sessionToken != nil, comment)
                #expect(try await AuthFixture.passwordLogin(client).errorCode == 401, comment)
                #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .ok, comment)
            }

            // A scanner opens the link (twice, with and without a cookie jar).
            let browser = PortalBrowser(client)
            let page = try await browser.get(revert)
            #expect(page.status == .ok, "\(page.html)")
            #expect(page.formAction == "/revert-email")
            #expect(page.html.contains("ada@example.com") && page.html.contains("signed out"), "says what will happen: \(page.html)")
            #expect(page.html.contains("<button id=\"submit\" type=\"submit\">"), "a labelled button, no script")
            #expect(!page.html.contains("<script"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(try await client.execute(uri: revert, method: .get) { $0.status } == .ok)
            try await nothingChanged("opening the revert link changes nothing")
            let setCookie = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("latchkey_csrf=") })
            #expect(setCookie.contains("Path=/;") || setCookie.hasSuffix("Path=/"), "the cookie reaches these pages: \(setCookie)")
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), "\(setCookie)")

            // Posts without the cookie, without the field, or with a field of another token: 403, nothing changes.
            let token = Self.token(of: revert)
            let csrf = try #require(page.hidden("csrf"))
            let cookie = try #require(browser.cookie)
            #expect(try await Self.post(client, "/revert-email", "token=\(token)") == .forbidden)
            #expect(try await Self.post(client, "/revert-email", "token=\(token)&csrf=\(csrf)") == .forbidden, "no cookie")
            #expect(try await Self.post(client, "/revert-email", "token=\(token)", cookie: cookie) == .forbidden, "no field")
            #expect(try await Self.post(client, "/revert-email", "token=\(token)&csrf=forged", cookie: cookie) == .forbidden)
            let forged = try await browser.post("/revert-email", ["token": token, "csrf": csrf + "x"])
            #expect(forged.status == .forbidden && forged.text(id: "title") == "This page has expired", "\(forged.html)")
            try await nothingChanged("a post without the CSRF cookie and field changes nothing")

            // The owner presses the button.
            let done = try await browser.post("/revert-email", ["token": page.hidden("token") ?? "", "csrf": csrf])
            #expect(done.status == .ok && done.text(id: "title") == "Email kept", "\(done.html)")
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .unauthorized,
                    "everyone is signed out")
            #expect(try await AuthFixture.passwordLogin(client, email: "new@example.com").errorCode == 401)
            let again = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: again)).decoded(Customer.self)?.username
                    == "ada@example.com")
            #expect(try await browser.post("/revert-email", ["token": token, "csrf": csrf]).status == .badRequest, "single use")
            let used = try await browser.get(revert)
            #expect(used.status == .badRequest && used.formAction == nil && used.text(id: "title") == "This link does not work")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func openingTheVerificationLinkChangesNothingUntilTheFormIsPosted(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let nonce = try await AuthFixture.register(client)
            let link = try await EmailLink.path(app, "email_verification", to: "ada@example.com")

            func unverified(_ comment: Comment) async throws {
                #expect(try await AuthFixture.passwordLogin(client).errorCode == 418, comment)
                let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
                #expect(!user.emailVerified, comment)
            }

            let browser = PortalBrowser(client)
            let page = try await browser.get(link)
            #expect(page.status == .ok, "\(page.html)")
            #expect(page.formAction == "/verify-email")
            #expect(page.html.contains("ada@example.com"), "says which address: \(page.html)")
            #expect(page.html.contains("<button id=\"submit\" type=\"submit\">"))
            #expect(page.headers[.contentSecurityPolicy] != nil && page.headers[.cacheControl] == "no-store")
            #expect(try await client.execute(uri: link, method: .get) { $0.status } == .ok)
            try await unverified("opening the verification link verifies nothing")

            let token = Self.token(of: link)
            let csrf = try #require(page.hidden("csrf"))
            let cookie = try #require(browser.cookie)
            #expect(try await Self.post(client, "/verify-email", "token=\(token)") == .forbidden)
            #expect(try await Self.post(client, "/verify-email", "token=\(token)&csrf=\(csrf)") == .forbidden, "no cookie")
            #expect(try await Self.post(client, "/verify-email", "token=\(token)&csrf=x", cookie: cookie) == .forbidden)
            try await unverified("a post without the CSRF cookie and field verifies nothing")
            #expect(try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce]).errorCode == 418)

            let done = try await browser.post("/verify-email", ["token": page.hidden("token") ?? "", "csrf": csrf])
            #expect(done.status == .ok && done.text(id: "title") == "Email verified", "\(done.html)")
            let login = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            #expect(login.login?.sessionToken != nil, "\(login.json)")
            #expect(try await browser.get(link).status == .badRequest, "single use")
        }
    }

    /// An email change's verification link: opening it says the address becomes the login and
    /// moves nothing; the post moves the login.
    @Test(arguments: TestEnvironment.engines)
    func openingAnEmailChangesLinkMovesNoLogin(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                          body: ["email": "new@example.com"]).status == .ok)
            let link = try await EmailLink.path(app, "email_change_verification", to: "new@example.com")
            let browser = PortalBrowser(client)
            let page = try await browser.get(link)
            #expect(page.status == .ok && page.formAction == "/verify-email", "\(page.html)")
            #expect(page.html.contains("new@example.com") && page.html.contains("login"), "\(page.html)")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "the old address is still the login")
            #expect(try await AuthFixture.passwordLogin(client, email: "new@example.com").errorCode == 401)

            let done = try await browser.post("/verify-email", ["token": page.hidden("token") ?? "", "csrf": page.hidden("csrf") ?? ""])
            #expect(done.status == .ok && done.html.contains("is now your login"), "\(done.html)")
            #expect(try await AuthFixture.passwordLogin(client, email: "new@example.com").login?.sessionToken != nil)
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 401)
        }
    }
}
