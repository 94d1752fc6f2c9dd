import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Throttles counted in the database (`WindowCounterStore`), so every replica enforces one limit.
@Suite struct DatabaseThrottleTests {
    /// Attack: verification-email resends flood an address (25 requests, 25 emails).
    /// An address gets `maxEmailsPerAddressPerHour` (3) resends and 3 reset emails an hour,
    /// counted whether or not a wallet has it.
    @Test(arguments: TestEnvironment.engines)
    func emailsPerAddressAreLimited(engine: String) async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 8_000_000))
        try await withServer(engine: engine, clock: clock) { app, client in
            _ = try await AuthFixture.register(client)
            func resend(_ email: String) async throws -> JSONAnswer {
                try await client.call(.post, "/v1/enrollment/verification-email", body: ["email": email])
            }
            var statuses: [Int] = []
            for _ in 0..<25 { statuses.append(try await resend("ada@example.com").status.code) }
            #expect(statuses == [200, 200, 200] + Array(repeating: 429, count: 22))
            #expect(try await resend("ada@example.com").headers[.retryAfter].flatMap(Int.init).map { $0 > 0 && $0 <= 3600 } == true)
            let sent = try await app.store.outboxMessages().filter { $0.template == "email_verification" }
            #expect(sent.count == 4, "the registration's and three resends")
            var unknown: [Int] = []
            for _ in 0..<4 { unknown.append(try await resend("nobody@example.com").status.code) }
            #expect(unknown == [200, 200, 200, 429], "an address without a wallet is limited alike")

            try await AuthFixture.verifyEmail(app, client)   // a pending registration is no wallet to reset
            var resets: [Int] = []
            for _ in 0..<4 { resets.append(try await client.call(.post, "/v1/enrollment/password-reset",
                                                                   body: ["email": "ada@example.com"]).status.code) }
            #expect(resets == [200, 200, 200, 429])
            clock.advance(3601)
            #expect(try await resend("ada@example.com").status == .ok, "a new hour")
        }
    }

    /// Attack: wrong codes are capped per flow, so a new flow per few guesses would give 15
    /// guesses a minute per number. A number takes `maxWrongCodesPerNumberPerHour` (10) wrong codes across flows.
    @Test(arguments: TestEnvironment.engines)
    func wrongCodesPerNumberAreLimitedAcrossFlows(engine: String) async throws {
        try await withServer(engine: engine, configure: SignupFixture.configure) { app, client in
            var statuses: [Int] = []
            for _ in 0..<4 {
                let flow = try await SignupFixture.newFlow(client)
                #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
                let code = try await SignupFixture.code(app)
                let wrong = code == "000000" ? "111111" : "000000"
                for _ in 0..<3 { statuses.append(try await SignupFixture.checkCode(client, flow: flow, otp: wrong).status.code) }
            }
            #expect(statuses.filter { $0 == 429 }.count == 2, "\(statuses)")
            #expect(Array(statuses.suffix(2)) == [429, 429])
            let flow = try await SignupFixture.newFlow(client)
            #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
            let right = try await SignupFixture.checkCode(client, flow: flow, otp: try await SignupFixture.code(app))
            #expect(right.status == .tooManyRequests, "past the limit even the right code waits")
        }
    }

    /// The issuer's SMS budget against SMS pumping: past `maxSmsPerHour` no code is sent.
    @Test(arguments: TestEnvironment.engines)
    func theIssuersSMSBudgetHolds(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.issuer.otp.maxSmsPerHour = 3 }) { app, client in
            var statuses: [Int] = []
            for index in 0..<4 {
                let flow = try await SignupFixture.newFlow(client)
                statuses.append(try await SignupFixture.sendCode(client, flow: flow, phone: "+43660000000\(index)").status.code)
            }
            #expect(statuses == [201, 201, 201, 429])
            #expect(try await app.store.outboxMessages().filter { $0.template == "otp" }.count == 3)
        }
    }
}
