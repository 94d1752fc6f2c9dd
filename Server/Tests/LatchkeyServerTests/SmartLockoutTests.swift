import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Failed logins from devices not linked to the wallet lock out unlinked devices only, for a while;
/// the owner's linked devices and sessions keep working, and no answer tells whether an email has
/// a wallet (Azure AD smart lockout, Keycloak brute-force detection).
@Suite struct SmartLockoutTests {
    /// Attack: anyone who knew an email deactivated the wallet with five wrong passwords from
    /// anywhere, which also ended the owner's sessions.
    @Test(arguments: TestEnvironment.engines)
    func strangersCannotDeactivateTheWallet(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            var codes: [Int] = []
            for index in 0..<12 {
                codes.append(try await AuthFixture.passwordLogin(client, password: "wrong-password-\(index)",
                                                                 device: "stranger").errorCode ?? 0)
            }
            #expect(codes == Array(repeating: 401, count: 12))
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.status == .active)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .ok,
                    "the owner's session lives on")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "the linked device logs in")
            #expect(try await AuthFixture.passwordLogin(client, device: "stranger").errorCode == 401,
                    "even the right password is refused from an unlinked device while the lockout runs")
            #expect(try await AuthFixture.passwordLogin(client, device: "new-phone").errorCode == 401,
                    "it holds for every unlinked device")
            clock.advance(901)
            #expect(try await AuthFixture.passwordLogin(client, device: "new-phone").login?.code == 412,
                    "after issuer.lockout.temporarySeconds the owner's new phone gets its MFA prompt")
        }
    }

    /// Attack: 421 after a few wrong passwords (and at once for a deactivated wallet) told which
    /// emails have wallets. From an unlinked device, a known email, an unknown one and a
    /// deactivated wallet answer the same to wrong passwords.
    @Test(arguments: TestEnvironment.engines)
    func answersDoNotTellWhetherAnEmailHasAWallet(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            _ = try await AuthFixture.enrolledSession(app, client, email: "bob@example.com", device: "bob-phone")
            let bob = try #require(try await app.store.user(issuer: "default", emailNormalized: "bob@example.com"))
            try await app.store.setUserStatus(userID: bob.id, status: .deactivated, now: Date())
            func codes(_ email: String) async throws -> [Int] {
                var codes: [Int] = []
                for index in 0..<8 {
                    codes.append(try await AuthFixture.passwordLogin(client, email: email, password: "wrong-password-\(index)",
                                                                     device: "stranger-\(email)").errorCode ?? 0)
                }
                return codes
            }
            let known = try await codes("ada@example.com")
            #expect(try await codes("nobody@example.com") == known)
            #expect(try await codes("bob@example.com") == known)
            #expect(known == Array(repeating: 401, count: 8))
            #expect(try await AuthFixture.passwordLogin(client, email: "bob@example.com", device: "bob-phone").errorCode == 421,
                    "the owner's linked device still learns the wallet is deactivated")
        }
    }

    /// Each further lockout lasts twice as long, up to `maxTemporarySeconds`.
    @Test func repeatedLockoutsDouble() async throws {
        let clock = TestClock(start: Date())
        try await withServer(clock: clock, configure: {
            $0.issuer.lockout.unlinkedThreshold = 2
            $0.issuer.lockout.temporarySeconds = 100
            $0.issuer.lockout.maxTemporarySeconds = 300
        }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            func lockOut() async throws {
                for _ in 0..<2 { _ = try await AuthFixture.passwordLogin(client, password: "wrong-password", device: "stranger") }
            }
            func prompted() async throws -> Bool {
                try await AuthFixture.passwordLogin(client, device: "stranger").login?.code == 412
            }
            for expected: TimeInterval in [100, 200, 300, 300] {
                try await lockOut()
                clock.advance(expected - 1)
                #expect(try await !prompted(), "locked for \(expected) s")
                clock.advance(1)
                #expect(try await prompted(), "unlocked after \(expected) s")
            }
        }
    }

    /// With the password, wrong MFA answers from a new device lock out unlinked devices, not the
    /// wallet; the right answer (password and answer proven) forgives the unlinked failures.
    @Test(arguments: TestEnvironment.engines)
    func wrongMFAAnswersLockOutUnlinkedDevicesOnly(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: { $0.issuer.lockout.unlinkedThreshold = 2 }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            func answer(_ text: (String) -> String) async throws -> JSONAnswer {
                let prompt = try await LoginTests.prompt(client, device: "device-2")
                return try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "device-2"),
                                             body: ["challengeToken": prompt.challenge, "mfaSecretAnswer": text(prompt.question)])
            }
            #expect(try await answer { _ in "wrong" }.errorCode == 401)
            #expect(try await answer { _ in "wrong" }.errorCode == 401)
            #expect(try await AuthFixture.passwordLogin(client, device: "device-2").errorCode == 401, "unlinked devices locked out")
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: session)).status == .ok)
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
            clock.advance(901)
            _ = try await AuthFixture.passwordLogin(client, password: "wrong-password", device: "device-3")
            #expect(try await answer(AuthFixture.answer(for:)).login?.sessionToken != nil)
            _ = try await AuthFixture.passwordLogin(client, password: "wrong-password", device: "device-3")
            #expect(try await AuthFixture.passwordLogin(client, device: "device-3").login?.code == 412,
                    "the right answer forgave the earlier unlinked failure")
        }
    }

    /// Attack: the per-account rate limit answered 429 only for emails that have wallets, so a
    /// burst of wrong passwords told which ones do. An unknown email meets the same limit.
    @Test(arguments: TestEnvironment.engines)
    func theAccountRateLimitDoesNotTellEither(engine: String) async throws {
        // A stopped clock: the in-memory limit's window is the wall clock's minute, which a slow
        // run crossed once (four attempts passed a limit of three).
        try await withServer(engine: engine, clock: TestClock(start: Date()), configure: {
            $0.rateLimits.enabled = true
            $0.rateLimits.credentialAttemptsPerMinutePerAccount = 3
        }) { app, client in
            _ = try await AuthFixture.nonceSession(app, client)
            func codes(_ email: String) async throws -> [Int] {
                var codes: [Int] = []
                for index in 0..<5 {
                    codes.append(try await AuthFixture.passwordLogin(client, email: email, password: "wrong-password-\(index)",
                                                                     device: "stranger-\(email)").errorCode ?? 0)
                }
                return codes
            }
            let known = try await codes("ada@example.com")
            #expect(known == [401, 401, 401, 429, 429])
            #expect(try await codes("nobody@example.com") == known)
        }
    }
}
