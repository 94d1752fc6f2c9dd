import Foundation
import HTTPTypes
import HummingbirdOTP
import HummingbirdTesting
@testable import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import Testing

/// The operator console — accounts set up from a one-time link with a password and an
/// authenticator (RFC 6238), cookie sessions, CSRF on every form, the pages — on both engines.
@Suite struct ConsoleTests {
    /// RFC 6238 Appendix B: the codes of its three keys at its six times, 8 digits.
    @Test func theCodesAreRFC6238s() {
        let vectors: [(TOTPCheck.Hash, String, [Int64: String])] = [
            (.sha1, "12345678901234567890", [59: "94287082", 1_111_111_109: "07081804", 1_111_111_111: "14050471",
                                             1_234_567_890: "89005924", 2_000_000_000: "69279037", 20_000_000_000: "65353130"]),
            (.sha256, "12345678901234567890123456789012", [59: "46119246", 1_111_111_109: "68084774", 1_111_111_111: "67062674",
                                                           1_234_567_890: "91819424", 2_000_000_000: "90698825", 20_000_000_000: "77737706"]),
            (.sha512, "1234567890123456789012345678901234567890123456789012345678901234",
             [59: "90693936", 1_111_111_109: "25091201", 1_111_111_111: "99943326", 1_234_567_890: "93441116",
              2_000_000_000: "38618901", 20_000_000_000: "47863826"]),
        ]
        for (hash, secret, codes) in vectors {
            for (time, code) in codes {
                #expect(TOTPCheck(secret: secret).code(step: time / 30, digits: 8, hash: hash) == code, "\(hash) \(time)")
            }
        }
        // RFC 4648's base32 of the SHA-1 key, as an authenticator is given it by hand.
        #expect(TOTPCheck(secret: "12345678901234567890").manualEntry.replacingOccurrences(of: " ", with: "") == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    }

    /// The domain's own RFC 4226 code agrees with HummingbirdOTP's on random secrets and
    /// times, for every hash and length, and so does the authenticator URI.
    @Test func theCodesAgreeWithHummingbirdOTP() {
        for hash in TOTPCheck.Hash.allCases {
            for digits in 6...8 {
                for _ in 0..<20 {
                    let secret = TOTPCheck.newSecret(), step = Int64.random(in: 0..<100_000_000)
                    let theirs = TOTP(secret: secret, length: digits, timeStep: TOTPCheck.timeStep, hashFunction: hash.function)
                        .compute(date: Date(timeIntervalSince1970: TimeInterval(step * Int64(TOTPCheck.timeStep))))
                    #expect(TOTPCheck(secret: secret).code(step: step, digits: digits, hash: hash) == Self.padded(theirs, digits))
                }
            }
        }
        let secret = TOTPCheck.newSecret()
        for (issuer, account) in [("Latchkey Wallet", "desk@example.com"), ("Bank", "ops+1@example.org")] {
            #expect(TOTPCheck(secret: secret).uri(account: account, issuer: issuer)
                == TOTP(secret: secret).createAuthenticatorURL(label: "\(issuer):\(account)", issuer: issuer))
        }
    }

    static func padded(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// One step either side of now is accepted (a phone's clock drift), two are not.
    @Test func theWindowIsOneStepEitherSide() {
        let totp = TOTPCheck(secret: TOTPCheck.newSecret()), now = Date()
        let step = TOTPCheck.step(of: now)
        for offset in [-1, 0, 1] as [Int64] { #expect(totp.matchingStep(totp.code(step: step + offset), now: now) == step + offset) }
        for offset in [-3, -2, 2, 3] as [Int64] { #expect(totp.matchingStep(totp.code(step: step + offset), now: now) == nil) }
        #expect(totp.matchingStep("12345", now: now) == nil && totp.matchingStep("abcdef", now: now) == nil)
    }

    /// The support desk's journey in the console: set up from the link, sign in, find a wallet
    /// locked out by wrong passwords by the beginning of its address, see why, unlock it, end a
    /// session, and see both in the events page.
    @Test(arguments: TestEnvironment.engines)
    func theSupportDesksJourney(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            for index in 0..<5 { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)") }
            let browser = ConsoleBrowser(client)
            let secret = try await Self.setUp(app, browser, clock: clock, role: .support)

            clock.advance(30)
            try await browser.signOut()
            #expect(try await browser.signIn("desk@example.com", "a long operator password", Self.code(secret, clock)).status == .seeOther)
            let dashboard = try await browser.get("/console")
            #expect(dashboard.status == .ok && dashboard.html.contains("<svg") && dashboard.html.contains("Logins"), "\(dashboard.html)")

            let search = try await browser.get("/console/users?q=ada%40exa")
            let link = try #require(search.html.range(of: "/console/users/[0-9a-f-]{36}", options: .regularExpression).map { String(search.html[$0]) })
            let user = try await browser.get(link)
            #expect(user.html.contains("wallet deactivated") && user.html.contains("5 consecutive failed logins"), "\(user.html)")
            let confirm = try await browser.get(try #require(user.href(id: "action-unlock")))
            #expect(confirm.text(id: "question")?.contains("ada@example.com") == true)
            let unlocked = try await browser.submit(confirm)
            #expect(unlocked.status == .seeOther, "\(unlocked.status) \(unlocked.html)")
            let after = try await browser.get(try #require(unlocked.headers[.location]))
            #expect(after.text(id: "notice") == "Done: unlock." && after.html.contains("Nothing blocks its logins"), "\(after.html)")

            let session = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let withSession = try await browser.get(link)
            let id = String(SecureRandom.digest(session).prefix(16))
            let end = try await browser.get(try #require(withSession.href(id: "end-\(id)")))
            #expect(try await browser.submit(end).status == .seeOther)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .unauthorized)

            let userID = String(link.dropFirst("/console/users/".count))
            let events = try await browser.get("/console/events?userId=\(userID)&type=operator.command")
            #expect(events.html.contains("command=admin unlockUser") && events.html.contains("command=admin endSession"), "\(events.html)")
            #expect(events.html.contains("operator=desk@example.com") && events.html.contains("via=console"))
            #expect(try await browser.get("/console/courier").html.contains("email_verification"))
        }
    }

    /// Attack: a form posted without this sign-in's CSRF field — none, or another sign-in's —
    /// changes nothing.
    @Test(arguments: TestEnvironment.engines)
    func aFormWithoutTheTokenChangesNothing(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let user = try await AdminAPITests.userID(app)
            let (_, support) = try await AdminAPITests.key(app, .support)
            #expect(try await client.call(.post, "/admin/v1/users/\(user)/lock", headers: AdminAPITests.admin(support)).status == .noContent)
            let browser = ConsoleBrowser(client)
            _ = try await Self.setUp(app, browser, clock: clock, role: .support)
            let other = ConsoleBrowser(client)
            _ = try await Self.setUp(app, other, clock: clock, role: .support, email: "other@example.com")
            let confirm = try await other.get("/console/users/\(user)/confirm?action=unlock")
            let foreign = try #require(confirm.hidden("csrf"))
            for fields in [["action": "unlock"], ["action": "unlock", "csrf": ""], ["action": "unlock", "csrf": foreign]] {
                let answer = try await browser.post("/console/users/\(user)/actions", fields)
                #expect(answer.status == .forbidden, "\(fields)")
            }
            #expect(try await app.store.user(id: user)?.locked == true, "still locked")
            // The sign-out form is guarded too.
            #expect(try await browser.post("/console/logout", [:]).status == .forbidden)
            #expect(try await browser.get("/console").status == .ok, "still signed in")
        }
    }

    /// Attack: a code from two steps ago, or one already used, is refused with the right password;
    /// wrong codes lock the account, which the right code then does not open.
    @Test(arguments: TestEnvironment.engines)
    func oldUsedAndGuessedCodesAreRefused(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            let browser = ConsoleBrowser(client)
            let secret = try await Self.setUp(app, browser, clock: clock, role: .viewer)
            try await browser.signOut()
            let setupCode = Self.code(secret, clock)
            #expect(try await browser.signIn("desk@example.com", "a long operator password", setupCode).status == .unauthorized,
                    "the code the setup used is spent")
            clock.advance(90)
            let old = TOTPCheck(secret: secret).code(step: TOTPCheck.step(of: clock.now) - 2)
            #expect(try await browser.signIn("desk@example.com", "a long operator password", old).status == .unauthorized, "two steps old")
            let fresh = Self.code(secret, clock)
            #expect(try await browser.signIn("desk@example.com", "a long operator password", fresh).status == .seeOther)
            try await browser.signOut()
            #expect(try await browser.signIn("desk@example.com", "a long operator password", fresh).status == .unauthorized, "replayed")

            clock.advance(30)
            for guess in ["000000", "111111", "222222", "333333", "444444"] {
                _ = try await browser.signIn("desk@example.com", "a long operator password", guess)
            }
            #expect(try await browser.signIn("desk@example.com", "a long operator password", Self.code(secret, clock)).status == .unauthorized,
                    "locked after five wrong codes")
            clock.advance(ConsoleService.lockDuration + 30)
            #expect(try await browser.signIn("desk@example.com", "a long operator password", Self.code(secret, clock)).status == .seeOther)
            let refusals = try await app.store.auditEvents(after: nil, since: nil, limit: 500)
                .filter { $0.details["command"] == "console signIn" && $0.outcome == .failure }.compactMap { $0.details["refused"] }
            #expect(refusals.contains("code already used") && refusals.contains("wrong code") && refusals.contains("locked"), "\(refusals)")
        }
    }

    /// Attack: a viewer signed in cannot act (403, recorded, nothing changes) and sees no action.
    /// The cookie is HttpOnly and SameSite=Strict; the pages carry the strict CSP; an idle session ends.
    @Test(arguments: TestEnvironment.engines)
    func aViewerReadsButCannotActAndSessionsEnd(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: AdminAPITests.configure) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let user = try await AdminAPITests.userID(app)
            let browser = ConsoleBrowser(client)
            _ = try await Self.setUp(app, browser, clock: clock, role: .viewer)
            let setCookie = try #require(browser.lastSetCookie)
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), "\(setCookie)")
            let page = try await browser.get("/console/users/\(user)")
            #expect(page.status == .ok && !page.html.contains("id=\"actions\""))
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let csrf = try #require(page.hidden("csrf"))
            let answer = try await browser.post("/console/users/\(user)/actions", ["action": "deactivate", "csrf": csrf])
            #expect(answer.status == .forbidden)
            #expect(try await app.store.user(id: user)?.status == .active)
            #expect(try await app.store.auditEvents(after: nil, since: nil, limit: 500)
                .contains { $0.details["refused"] == "viewer" && $0.details["via"] == "console" && $0.userID == user },
                    "the refusal is among the user's events")
            clock.advance(ConsoleService.idleTimeout + 1)
            let idle = try await browser.get("/console")
            #expect(idle.status == .seeOther && idle.headers[.location] == "/console/login", "idle: signed out")
        }
    }

    /// A session in use every few minutes still ends 8 hours after sign-in; behind an `https:`
    /// console address the cookie is `Secure` and `__Host-` (bound to the host, never sent in clear).
    @Test(arguments: TestEnvironment.engines)
    func aBusySessionEndsAfterEightHoursAndTheCookieIsSecureUnderTLS(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: {
            AdminAPITests.configure(&$0)
            $0.admin.consoleURL = "https://console.wallet.example"
        }) { app, client in
            let browser = ConsoleBrowser(client)
            _ = try await Self.setUp(app, browser, clock: clock, role: .viewer)
            let setCookie = try #require(browser.lastSetCookie)
            #expect(setCookie.hasPrefix("__Host-") && setCookie.contains("; Secure") && setCookie.contains("HttpOnly"), "\(setCookie)")
            var elapsed: TimeInterval = 0
            while elapsed + ConsoleService.idleTimeout - 60 < ConsoleService.absoluteTimeout {
                clock.advance(ConsoleService.idleTimeout - 60)
                elapsed += ConsoleService.idleTimeout - 60
                #expect(try await browser.get("/console").status == .ok, "in use at \(Int(elapsed / 60)) minutes: signed in")
            }
            clock.advance(ConsoleService.absoluteTimeout - elapsed + 1)
            let over = try await browser.get("/console")
            #expect(over.status == .seeOther && over.headers[.location] == "/console/login", "8 hours after sign-in: signed out")
        }
    }

    // MARK: Helpers

    static func code(_ secret: String, _ clock: TestClock) -> String { TOTPCheck(secret: secret).code(step: TOTPCheck.step(of: clock.now)) }

    /// Creates an operator as the command line does, opens the setup link, reads the key the page
    /// shows, and sets the account up; answers the authenticator's secret (the key's text).
    static func setUp(_ app: LatchkeyApplication, _ browser: ConsoleBrowser, clock: TestClock, role: OperatorRole,
                      email: String = "desk@example.com") async throws -> String {
        let (_, token) = try await ConsoleService.createOperator(email: email, role: role, store: app.store, now: clock.now)
        let page = try await browser.get("/console/setup?token=\(token)")
        #expect(page.status == .ok && page.html.contains("otpauth://totp/"), "\(page.html)")
        let shown = try #require(page.text(id: "secret"))
        let secret = try #require(base32Decoded(shown))
        let done = try await browser.submit(page, ["password": "a long operator password", "confirm": "a long operator password",
                                                   "code": code(secret, clock)])
        #expect(done.status == .seeOther && done.headers[.location] == "/console", "\(done.html)")
        return secret
    }

    static func base32Decoded(_ text: String) -> String? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bytes: [UInt8] = [], buffer = 0, bits = 0
        for character in text where character != " " {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }
}

/// A browser without JavaScript: keeps every cookie, fills forms.
final class ConsoleBrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]
    var lastSetCookie: String?
    /// The client address this browser's requests come from, told by the trusted proxy (a live
    /// server whose `http.trustedProxies` holds the test client); nil for none.
    var forwardedFor: String?

    init(_ client: any TestClientProtocol, from address: String? = nil) {
        self.client = client
        self.forwardedFor = address
    }

    func get(_ path: String) async throws -> PortalPage { try await send(.get, path, body: nil) }

    func post(_ path: String, _ fields: [String: String]) async throws -> PortalPage {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return try await send(.post, path, body: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&"))
    }

    /// Posts the page's form: its hidden fields and `fields`.
    func submit(_ page: PortalPage, _ fields: [String: String] = [:]) async throws -> PortalPage {
        // The page's own form, in `main` (the header's is the sign-out).
        let main = page.html[(page.html.range(of: "<main")?.lowerBound ?? page.html.startIndex)...]
        let action = try #require(main.range(of: "<form method=\"post\" action=\"").map { range in
            String(main[range.upperBound...].prefix { $0 != "\"" })
        })
        var values = fields
        var rest = main
        while let range = rest.range(of: "type=\"hidden\" name=\"") {
            let name = String(rest[range.upperBound...].prefix { $0 != "\"" })
            values[name] = values[name] ?? PortalPage(status: page.status, headers: page.headers, html: String(main)).hidden(name)
            rest = rest[range.upperBound...]
        }
        return try await post(action.replacingOccurrences(of: "&amp;", with: "&"), values)
    }

    func signIn(_ email: String, _ password: String, _ code: String) async throws -> PortalPage {
        let page = try await get("/console/login")
        return try await submit(page, ["email": email, "password": password, "code": code])
    }

    func signOut() async throws {
        let page = try await get("/console")
        _ = try await post("/console/logout", ["csrf": page.hidden("csrf") ?? ""])
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, body: String?) async throws -> PortalPage {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        if let forwardedFor { headers[HTTPField.Name("X-Forwarded-For")!] = forwardedFor }
        let page = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) {
            PortalPage(status: $0.status, headers: $0.headers, html: String(buffer: $0.body))
        }
        for field in page.headers[values: .setCookie] {
            lastSetCookie = field
            let pair = field.prefix { $0 != ";" }
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
            if value.isEmpty || field.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return page
    }
}

extension PortalPage {
    /// The `href` of the link with `id`.
    func href(id: String) -> String? {
        guard let range = html.range(of: "href=\"[^\"]*\" id=\"\(id)\"", options: .regularExpression) else { return nil }
        let text = html[range].dropFirst("href=\"".count)
        return String(text.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension TOTPCheck.Hash {
    var function: OTPHashFunction {
        switch self {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }
}
