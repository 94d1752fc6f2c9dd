import Foundation
import LatchkeyAPI
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The reset portal's answers are counted per account across all links, in the database.
@Suite struct ResetBudgetTests {
    /// Attack: after the wallet is locked by wrong passwords, whoever holds the inbox asks for
    /// link after link, hoping for a fresh count of answers with each, until the right answer
    /// resets the password and reactivates the wallet. The account has `maxAnswerAttempts` answers per window whatever
    /// the number of links (each stays valid until used or expired, so a stranger's request voids
    /// no link of the owner's), past the budget no answer is checked on any link, and
    /// after the window the owner's reset still lifts the lockout.
    @Test(arguments: TestEnvironment.engines)
    func answersAreCountedPerAccountAcrossLinks(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: {
            $0.issuer.lockout.walletThreshold = 5
            $0.issuer.lockout.deviceThreshold = 50
            $0.issuer.reset.maxAnswerAttempts = 3
            $0.issuer.reset.answerWindowMinutes = 60
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            for index in 0..<5 { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)") }
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 421, "locked by wrong passwords")

            let browser = PortalBrowser(client)
            let first = try await browser.get(try await ResetFixture.requestLink(app, client))
            func answer(_ page: PortalPage, _ text: String) async throws -> PortalPage {
                try await browser.post("/reset/answer", ["token": page.hidden("token") ?? "", "csrf": page.hidden("csrf") ?? "",
                                                         "answer": text])
            }
            #expect(try await answer(first, "wrong").status == .unprocessableContent)
            #expect(try await answer(first, "wrong").status == .unprocessableContent)

            let second = try await browser.get(try await ResetFixture.requestLink(app, client))
            #expect(second.status == .ok)
            #expect(try await answer(second, "wrong").status == .unprocessableContent, "the account's third answer, on another link")
            let unchecked = try await answer(second, ResetFixture.rightAnswer(second))
            #expect(unchecked.status == .tooManyRequests && unchecked.hidden("grant") == nil, "past the budget nothing is checked")
            #expect(unchecked.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 && $0 <= 3600 } == true)
            let onTheFirst = try await answer(first, ResetFixture.rightAnswer(first))
            #expect(onTheFirst.status == .tooManyRequests && onTheFirst.hidden("grant") == nil, "nor on the earlier link")
            let third = try await browser.get(try await ResetFixture.requestLink(app, client))
            #expect(third.status == .tooManyRequests, "nor does a new link ask")
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 421)

            clock.advance(3601)
            let form = try await ResetFixture.grantForm(browser, try await ResetFixture.requestLink(app, client))
            let done = try await browser.post("/reset/credential", ["grant": form.hidden("grant")!, "csrf": form.hidden("csrf")!,
                                                                    "new": "recovered-pass-7", "confirm": "recovered-pass-7"])
            #expect(done.status == .ok)
            #expect(try await AuthFixture.passwordLogin(client, password: "recovered-pass-7").login?.sessionToken != nil,
                    "recovery still lifts the lockout")
        }
    }

    /// The budget holds under parallel answers and across replicas: it is one row, counted atomically.
    @Test(arguments: TestEnvironment.engines)
    func theBudgetIsCountedAtomically(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date(timeIntervalSince1970: 5_000_000)
            let user = UserRecord(id: SecureRandom.identifier(), issuer: "default", email: "b@x.io", emailNormalized: "b@x.io",
                                  firstName: nil, lastName: nil, phone: nil, externalId: nil, passwordHash: "h", passcodeHash: "p",
                                  emailVerified: true, createdAt: now, updatedAt: now)
            try await store.createUser(user, answers: [], tokens: [], messages: [])
            let results = try await withThrowingTaskGroup(of: Date?.self) { group in
                for _ in 0..<12 { group.addTask { try await store.hit("reset-answer:" + user.id, limit: 3, window: 600, now: now) } }
                return try await group.reduce(into: [Date?]()) { $0.append($1) }
            }
            #expect(results.filter { $0 == nil }.count == 3)
            #expect(results.compactMap { $0 }.allSatisfy { $0 == now.addingTimeInterval(600) })
            try await store.release("reset-answer:" + user.id)
            #expect(try await store.hit("reset-answer:" + user.id, limit: 3, window: 600, now: now) == nil, "a right answer is given back")
            #expect(try await store.hit("reset-answer:" + user.id, limit: 3, window: 600, now: now.addingTimeInterval(600)) == nil,
                    "a new window")
        }
    }
}
