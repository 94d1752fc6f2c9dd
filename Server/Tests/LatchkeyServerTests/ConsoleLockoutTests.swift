import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The console's sign-in lockout as a stranger would use it against an operator, on both engines:
/// wrong sign-ins lock only the (operator, client address) they came from, the count starts
/// again when a lock ends or after a quiet period, and every refusal costs the same hash work.
@Suite struct ConsoleLockoutTests {
    static let password = "a long operator password"
    static let owner = "198.51.100.20", stranger = "203.0.113.66"

    /// A live server (so the client address is the trusted proxy's `X-Forwarded-For`) with the console.
    static func withConsole(engine: String, clock: TestClock,
                            _ body: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(engine: engine, clock: clock, live: true, configure: {
            AdminAPITests.configure(&$0)
            $0.http.trustedProxies = ["127.0.0.0/8", "::1/128"]
        }, body)
    }

    /// An operator set up from `browser` and signed out again; answers the authenticator's secret.
    static func signedOutOperator(_ app: LatchkeyApplication, _ browser: ConsoleBrowser, clock: TestClock,
                                  role: OperatorRole) async throws -> String {
        let secret = try await ConsoleTests.setUp(app, browser, clock: clock, role: role)
        try await browser.signOut()
        return secret
    }

    /// Attack: five wrong sign-ins from one address must not lock the operator out everywhere: they
    /// lock that address out of that account (even with the right password and code), and the
    /// owner at another address signs in.
    @Test(arguments: TestEnvironment.engines)
    func aStrangersFailuresDoNotLockTheOwnerOut(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await Self.withConsole(engine: engine, clock: clock) { app, client in
            let owner = ConsoleBrowser(client, from: Self.owner)
            let secret = try await Self.signedOutOperator(app, owner, clock: clock, role: .admin)
            let stranger = ConsoleBrowser(client, from: Self.stranger)
            for index in 0..<ConsoleService.failureThreshold {
                #expect(try await stranger.signIn("desk@example.com", "wrong password \(index)", "000000").status == .unauthorized)
            }
            clock.advance(30)
            #expect(try await stranger.signIn("desk@example.com", Self.password, ConsoleTests.code(secret, clock)).status == .unauthorized,
                    "the stranger's address is locked out of the account, even with the right password and code")
            let signedIn = try await owner.signIn("desk@example.com", Self.password, ConsoleTests.code(secret, clock))
            #expect(signedIn.status == .seeOther, "the owner at another address signs in: \(signedIn.status)")
        }
    }

    /// Attack: one wrong attempt every 15 minutes must not keep the account locked for good: a lock's end starts the count again, attempts during
    /// a lock do not extend it, and failures spread wider than the window do not add up.
    @Test(arguments: TestEnvironment.engines)
    func theCountStartsAgainWhenALockEnds(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await Self.withConsole(engine: engine, clock: clock) { app, client in
            let browser = ConsoleBrowser(client, from: Self.owner)
            let secret = try await Self.signedOutOperator(app, browser, clock: clock, role: .viewer)
            // The threshold's failures, and the attempt after them, which finds the address locked.
            for index in 0...ConsoleService.failureThreshold {
                _ = try await browser.signIn("desk@example.com", "wrong password \(index)", "000000")
            }
            clock.advance(ConsoleService.lockDuration - 120)
            for index in 0..<3 { _ = try await browser.signIn("desk@example.com", "more wrong \(index)", "000000") }
            clock.advance(150)
            #expect(try await browser.signIn("desk@example.com", "one wrong after the lock", "000000").status == .unauthorized)
            let after = try await browser.signIn("desk@example.com", Self.password, ConsoleTests.code(secret, clock))
            #expect(after.status == .seeOther, "one wrong attempt after the lock ended locked it again: \(after.status)")
            try await browser.signOut()

            // Four failures, a quiet quarter of an hour, four more: never five within the window.
            clock.advance(30)
            for index in 0..<4 { _ = try await browser.signIn("desk@example.com", "early wrong \(index)", "000000") }
            clock.advance(ConsoleService.failureWindow + 30)
            for index in 0..<4 { _ = try await browser.signIn("desk@example.com", "late wrong \(index)", "000000") }
            let spread = try await browser.signIn("desk@example.com", Self.password, ConsoleTests.code(secret, clock))
            #expect(spread.status == .seeOther, "failures a window apart added up to a lock: \(spread.status)")
        }
    }

    /// Attack: a locked account that answered without hashing would tell by its timing which
    /// operator emails exist. A wrong password, an unknown email and a locked account run the same
    /// number of hashes (the hash gate's count, not the clock).
    @Test(arguments: TestEnvironment.engines)
    func everyRefusalCostsTheSameHashing(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await Self.withConsole(engine: engine, clock: clock) { app, client in
            let browser = ConsoleBrowser(client, from: Self.owner)
            _ = try await Self.signedOutOperator(app, browser, clock: clock, role: .viewer)
            let gate = app.hasher.gate
            func hashes(_ email: String, _ password: String) async throws -> Int {
                let before = gate.completedHashes
                #expect(try await browser.signIn(email, password, "000000").status == .unauthorized)
                return gate.completedHashes - before
            }
            let unknown = try await hashes("nobody@example.com", "a guessed password")
            let wrong = try await hashes("desk@example.com", "a guessed password")
            for index in 0..<ConsoleService.failureThreshold { _ = try await hashes("desk@example.com", "wrong password \(index)") }
            let locked = try await hashes("desk@example.com", "a guessed password")
            #expect(unknown == 1 && wrong == 1, "unknown: \(unknown), wrong password: \(wrong)")
            #expect(locked == wrong, "a locked account ran \(locked) hashes, a wrong password \(wrong)")
        }
    }
}

/// Guesses that arrive together, and guesses from many addresses by someone who has the password.
extension ConsoleLockoutTests {
    /// The reasons of the console's refused sign-ins, oldest first.
    static func refusals(_ app: LatchkeyApplication) async throws -> [String] {
        try await app.store.auditEvents(after: nil, since: nil, limit: 500)
            .filter { $0.details["command"] == "console signIn" && $0.outcome == .failure }.compactMap { $0.details["refused"] }
    }

    /// Attack: guesses sent from one address at once were all judged, since each read the lock
    /// before any had counted. Each attempt is counted before its password is checked, so no more
    /// than the threshold are ever judged in a window, however many arrive together.
    @Test(arguments: TestEnvironment.engines)
    func guessesSentTogetherAreCountedBeforeTheyAreJudged(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await Self.withConsole(engine: engine, clock: clock) { app, client in
            _ = try await Self.signedOutOperator(app, ConsoleBrowser(client, from: Self.owner), clock: clock, role: .admin)
            // The service itself, called from many tasks at once: the test client's requests
            // share one connection, so they would arrive one by one.
            let console = ConsoleService(store: app.store, hasher: app.hasher, pepper: SymmetricKey(size: .bits256),
                                         issuerName: "test", now: { clock.now })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<(3 * ConsoleService.failureThreshold) {
                    group.addTask { _ = try await console.signIn(email: "desk@example.com", password: "wrong password \(index)", code: "000000",
                                                                 clientIP: Self.stranger) }
                }
                try await group.waitForAll()
            }
            let judged = try await Self.refusals(app).filter { $0 != "locked" }
            #expect(judged.count <= ConsoleService.failureThreshold, "judged: \(judged)")
        }
    }

    /// Attack: someone who has an operator's password guesses its authenticator's codes from
    /// many addresses, each under its own limit. Wrong codes with the right password are counted
    /// for the account whatever the address, and lock it: only the password's holder can cause that.
    @Test(arguments: TestEnvironment.engines)
    func wrongCodesWithTheRightPasswordAreCountedFromEveryAddress(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await Self.withConsole(engine: engine, clock: clock) { app, client in
            let owner = ConsoleBrowser(client, from: Self.owner)
            let secret = try await Self.signedOutOperator(app, owner, clock: clock, role: .admin)
            clock.advance(30)   // the setup spent the current step
            let right = ConsoleTests.code(secret, clock)
            let wrong = String(format: "%06d", (Int(right)! + 500_000) % 1_000_000)
            for index in 0..<ConsoleService.failureThreshold {
                let guesser = ConsoleBrowser(client, from: "203.0.113.\(100 + index)")
                #expect(try await guesser.signIn("desk@example.com", Self.password, wrong).status == .unauthorized)
            }
            let another = ConsoleBrowser(client, from: "203.0.113.200")
            #expect(try await another.signIn("desk@example.com", Self.password, right).status == .unauthorized,
                    "the account is locked for the password's holder at any address")
            #expect(try await Self.refusals(app).filter { $0 == "locked" }.count == 1, "the owner's attempt was refused as locked")
        }
    }
}
