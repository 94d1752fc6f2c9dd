import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The secure portal a reset link opens, driven like a browser without JavaScript.
@Suite struct PortalTests {
    static let newPassword = "brand-new-secret-7"

    @Test(arguments: TestEnvironment.engines)
    func aPasswordResetEndsEverySessionAndUsesTheLinkUp(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let path = try await ResetFixture.requestLink(app, client)
            let browser = PortalBrowser(client)

            let question = try await browser.get(path)
            #expect(question.status == .ok)
            #expect(question.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(question.headers[.cacheControl] == "no-store")
            #expect(question.headers[values: .init("X-Frame-Options")!] == ["DENY"])
            #expect(question.headers[values: .setCookie].first?.contains("SameSite=Strict") == true)
            #expect(question.headers[values: .setCookie].first?.contains("HttpOnly") == true)
            #expect(question.html.contains("name=\"viewport\""))
            #expect(ResetFixture.rightAnswer(question) != "?", "one of the user's questions")

            let wrong = try await browser.post("/reset/answer", ["token": question.hidden("token")!, "csrf": question.hidden("csrf")!,
                                                                 "answer": "Not it"])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text(id: "error")?.contains("not correct") == true)
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "a wrong answer changes no password")

            let form = try await browser.post("/reset/answer", ["token": wrong.hidden("token")!, "csrf": wrong.hidden("csrf")!,
                                                                "answer": "  " + ResetFixture.rightAnswer(question).uppercased()])
            #expect(form.status == .ok)
            let grant = try #require(form.hidden("grant"))
            func submit(_ new: String, _ confirm: String) async throws -> PortalPage {
                try await browser.post("/reset/credential", ["grant": grant, "csrf": form.hidden("csrf")!, "new": new, "confirm": confirm])
            }
            let short = try await submit("short", "short")
            #expect(short.status == .unprocessableContent && short.text(id: "error")?.contains("8") == true)
            let mismatch = try await submit(Self.newPassword, Self.newPassword + "x")
            #expect(mismatch.status == .unprocessableContent && mismatch.text(id: "error") == "The two entries differ.")
            let reused = try await submit(AuthFixture.password, AuthFixture.password)
            #expect(reused.status == .unprocessableContent && reused.text(id: "error")?.contains("used recently") == true)

            let done = try await submit(Self.newPassword, Self.newPassword)
            #expect(done.status == .ok)
            #expect(done.text(id: "title") == "Your password is reset")
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 401)
            #expect(try await AuthFixture.passwordLogin(client, password: Self.newPassword).login?.sessionToken != nil)
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .unauthorized)
            #expect(try await app.store.outboxMessages().contains { $0.template == "password_reset_notice" })

            #expect(try await browser.get(path).status == .gone, "the link is used")
            #expect(try await submit("another-secret-9", "another-secret-9").status == .gone, "the grant is used")
        }
    }

    @Test func aPasscodeResetChecksTheIssuersRules() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let browser = PortalBrowser(client)
            let form = try await ResetFixture.grantForm(browser, try await ResetFixture.requestLink(app, client, kind: "passcode"))
            #expect(form.html.contains("inputmode=\"numeric\""))
            #expect(form.html.contains("exactly 6 digits"))
            let fields = ["grant": form.hidden("grant")!, "csrf": form.hidden("csrf")!]
            let run = try await browser.post("/reset/credential", fields.merging(["new": "123456", "confirm": "123456"]) { $1 })
            #expect(run.status == .unprocessableContent && run.text(id: "error") != nil)
            let done = try await browser.post("/reset/credential", fields.merging(["new": "275804", "confirm": "275804"]) { $1 })
            #expect(done.text(id: "title") == "Your PIN is reset")
            let pin = try await client.call(.post, "/v1/auth/login/pin", body: ["pin": "275804"])
            #expect(pin.login?.sessionToken != nil, "\(pin.json)")
        }
    }

    @Test func formsWithoutTheCSRFCookieOrFieldAreRefused() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)
            let path = try await ResetFixture.requestLink(app, client)
            let browser = PortalBrowser(client)
            let page = try await browser.get(path)
            let token = try #require(page.hidden("token"))
            let answer = ResetFixture.rightAnswer(page)

            let forged = try await browser.post("/reset/answer", ["token": token, "csrf": "forged", "answer": answer])
            #expect(forged.status == .forbidden)
            let cookieless = PortalBrowser(client)
            let noCookie = try await cookieless.post("/reset/answer", ["token": token, "csrf": page.hidden("csrf")!, "answer": answer])
            #expect(noCookie.status == .forbidden)
            #expect(try await browser.get(path).status == .ok, "refused forms do not use the link up")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func wrongAnswersSpendTheLinkAndCountTowardLockout(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: {
            $0.issuer.lockout.walletThreshold = 2
            $0.issuer.reset.maxAnswerAttempts = 3
        }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let path = try await ResetFixture.requestLink(app, client)
            let browser = PortalBrowser(client)
            var page = try await browser.get(path)
            var statuses: [Int] = []
            for _ in 0..<3 {
                page = try await browser.post("/reset/answer", ["token": page.hidden("token") ?? "", "csrf": page.hidden("csrf") ?? "",
                                                                "answer": "wrong"])
                statuses.append(page.status.code)
            }
            #expect(statuses == [422, 422, 410])
            #expect(page.text(id: "title") == "Too many wrong answers")
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 421, "the wallet locked after two wrong answers")
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .unauthorized,
                    "locking the wallet ends its sessions")
            #expect(try await browser.get(path).status == .gone)
            // The account's answers are used up for the window (hardening issue): a new link asks nothing yet.
            let resting = try await browser.get(try await ResetFixture.requestLink(app, client))
            #expect(resting.status == .tooManyRequests && !resting.html.contains("id=\"answer\""), "\(resting.html)")
            clock.advance(TimeInterval(24 * 3600 + 60))

            let form = try await ResetFixture.grantForm(browser, try await ResetFixture.requestLink(app, client))
            let done = try await browser.post("/reset/credential", ["grant": form.hidden("grant")!, "csrf": form.hidden("csrf")!,
                                                                    "new": PortalTests.newPassword, "confirm": PortalTests.newPassword])
            #expect(done.status == .ok)
            #expect(try await AuthFixture.passwordLogin(client, password: PortalTests.newPassword).login?.sessionToken != nil,
                    "a completed reset restores a wallet locked by failures")
        }
    }

    @Test func anOperatorLockBlocksTheReset() async throws {
        try await withServer { app, client in
            _ = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)
            let path = try await ResetFixture.requestLink(app, client)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setLocked(userID: user.id, locked: true)
            let page = try await PortalBrowser(client).get(path)
            #expect(page.status.code == 423)
            #expect(!page.html.contains("<form"))
        }
    }

    @Test func valuesAreEscapedInPages() async throws {
        try await withServer(configure: { $0.issuer.name = "<script>Evil & Co</script>" }) { _, client in
            let page = try await PortalBrowser(client).get("/reset?token=unknown")
            #expect(page.status == .gone)
            #expect(!page.html.contains("<script>"))
            #expect(page.html.contains("&lt;script&gt;Evil &amp; Co"))
            let css = try await client.execute(uri: "/portal.css", method: .get) { $0.status }
            #expect(css == .ok)
        }
    }

    @Test func aWalletWithoutSecurityQuestionsGoesStraightToTheForm() async throws {
        try await withServer(configure: SignupFixture.configure) { app, client in
            let flow = try await SignupFixture.verifiedFlow(app, client)
            #expect(try await SignupFixture.finish(client, flow: flow, email: "pay@example.com").status == .ok)
            // The sign-up's email is a claim until its link is opened; only then does it reach the wallet.
            try await AuthFixture.verifyEmail(app, client, email: "pay@example.com")
            let browser = PortalBrowser(client)
            let page = try await browser.get(try await ResetFixture.requestLink(app, client, email: "pay@example.com"))
            #expect(page.status == .ok && !page.html.contains("id=\"answer\""), "no question to ask")
            let form = try await browser.post("/reset/answer", ["token": page.hidden("token")!, "csrf": page.hidden("csrf")!])
            let done = try await browser.post("/reset/credential", ["grant": try #require(form.hidden("grant")),
                                                                    "csrf": form.hidden("csrf")!, "new": "654321x", "confirm": "654321x"])
            #expect(done.status == .ok)
            let login = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:]).decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            let answer = try await client.call(.post, "/a/self-service/login?flow=\(login)", headers: SignupFixture.json,
                                               body: ["method": "password", "identifier": SignupFixture.phone, "password": "654321x"])
            #expect(answer.decoded(Components.Schemas.SuccessfulNativeLogin.self) != nil, "the phone identity logs in with the reset password")
        }
    }
}
