import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Code and flow misuse is refused with a 4xx in Kratos's envelope, never a 5xx.
@Suite struct SignupMisuseTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    @Test func phoneNumbersAndFlowIdsAreChecked() async throws {
        try await withServer(configure: SignupFixture.configure) { _, client in
            let flow = try await SignupFixture.newFlow(client)
            for phone in ["0664123456", "+0664123456", "+43 999", "+43999999999999999", "+43abc9999999"] {
                let answer = try await SignupFixture.sendCode(client, flow: flow, phone: phone)
                #expect(answer.status == .badRequest, "\(phone)")
                #expect(answer.failure?.id == "invalid_field" && answer.decoded(Components.Schemas.KratosError.self)?.error.status == "Bad Request")
            }
            #expect(try await SignupFixture.sendCode(client, flow: UUID().uuidString).status == .notFound)
            #expect(try await SignupFixture.sendCode(client, flow: "not-a-uuid").status == .notFound)
            let wrongType = try await client.call(.post, "/identity/verification/flow/phone", headers: SignupFixture.json,
                                                  body: ["phoneNumber": SignupFixture.phone, "phoneType": "SECONDARY",
                                                         "flowId": flow, "flowType": "REGISTRATION"])
            #expect(wrongType.status == .badRequest)
            #expect(try await SignupFixture.checkCode(client, flow: flow, otp: "123456").failure?.id == "otp_not_sent")
            let malformed = try await client.call(.patch, "/identity/verification/flow/phone", headers: SignupFixture.json, raw: "{")
            #expect(malformed.status == .badRequest && malformed.failure?.reason != nil)
            let login = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:]).decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            #expect(try await SignupFixture.sendCode(client, flow: login).status == .badRequest, "a login flow sends no codes")
        }
    }

    @Test func codesAreLimitedPerNumber() async throws {
        let clock = TestClock(start: Self.start)
        try await withServer(clock: clock, configure: {
            SignupFixture.configure(&$0)
            $0.rateLimits.enabled = true
            $0.rateLimits.requestsPerMinutePerIP = 1000
        }) { _, client in
            var statuses: [Int] = []
            for _ in 0..<4 {
                let flow = try await SignupFixture.newFlow(client)
                statuses.append(try await SignupFixture.sendCode(client, flow: flow).status.code)
            }
            #expect(statuses == [201, 201, 201, 429], "three codes a minute per number")
            let other = try await SignupFixture.newFlow(client)
            #expect(try await SignupFixture.sendCode(client, flow: other, phone: "+4312345678").status == .created)
            clock.advance(60)
            let later = try await SignupFixture.newFlow(client)
            #expect(try await SignupFixture.sendCode(client, flow: later).status == .created, "the next minute")
        }
    }

    @Test func codesAreLimitedPerClientIP() async throws {
        let clock = TestClock(start: Self.start)
        try await withServer(clock: clock, configure: {
            SignupFixture.configure(&$0)
            $0.rateLimits.enabled = true
            $0.rateLimits.requestsPerMinutePerIP = 1000
        }) { _, client in
            var statuses: [Int] = []
            for index in 0..<11 {
                let flow = try await SignupFixture.newFlow(client)
                statuses.append(try await SignupFixture.sendCode(client, flow: flow, phone: "+43660000000\(index % 10)").status.code)
            }
            #expect(statuses == Array(repeating: 201, count: 10) + [429], "ten codes a minute per client IP")
        }
    }

    @Test func codesExpireAndResendsAreThrottledWithoutResettingAttempts() async throws {
        let clock = TestClock(start: Self.start)
        try await withServer(clock: clock, configure: {
            SignupFixture.configure(&$0)
            $0.issuer.otp.maxAttempts = 3
        }) { app, client in
            let flow = try await SignupFixture.newFlow(client)
            #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
            let first = try await SignupFixture.code(app)
            let tooSoon = try await SignupFixture.sendCode(client, flow: flow)
            #expect(tooSoon.status == .tooManyRequests && tooSoon.headers[.retryAfter] != nil)
            let wrong = try await SignupFixture.checkCode(client, flow: flow, otp: first == "000000" ? "111111" : "000000")
            #expect(wrong.status == .badRequest && wrong.failure?.id == "otp_invalid")

            clock.advance(31)
            #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
            let second = try await SignupFixture.code(app)
            if second != first {
                #expect(try await SignupFixture.checkCode(client, flow: flow, otp: first).failure?.id == "otp_invalid",
                        "a resend replaces the code")
            }
            clock.advance(301)
            #expect(try await SignupFixture.checkCode(client, flow: flow, otp: second).status == .gone, "the code expired")
            clock.advance(31)
            #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
            let exhausted = try await SignupFixture.checkCode(client, flow: flow, otp: try await SignupFixture.code(app))
            #expect(exhausted.status == .forbidden, "the resend did not reset the three attempts")
            #expect(exhausted.failure?.id == "otp_attempts_exhausted")
            #expect(try await SignupFixture.finish(client, flow: flow).status == .badRequest, "the phone is not verified")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func afterTheLastWrongCodeEvenTheRightOneFails(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            SignupFixture.configure(&$0)
            $0.issuer.otp.maxAttempts = 3
        }) { app, client in
            let flow = try await SignupFixture.newFlow(client)
            #expect(try await SignupFixture.sendCode(client, flow: flow).status == .created)
            let code = try await SignupFixture.code(app)
            let wrongCode = code == "999999" ? "888888" : "999999"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await SignupFixture.checkCode(client, flow: flow, otp: wrongCode).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 400 || $0 == 403 })
            #expect(statuses.filter { $0 == 400 }.count <= 2)
            let right = try await SignupFixture.checkCode(client, flow: flow, otp: code)
            #expect(right.status == .forbidden)
        }
    }

    @Test func registrationRefusals() async throws {
        let clock = TestClock(start: Self.start)
        try await withServer(clock: clock, configure: SignupFixture.configure) { app, client in
            let unverified = try await SignupFixture.newFlow(client)
            let notVerified = try await SignupFixture.finish(client, flow: unverified)
            #expect(notVerified.status == .badRequest && SignupFixture.messageIDs(notVerified) == [4_000_001])

            let flow = try await SignupFixture.verifiedFlow(app, client)
            let other = try await SignupFixture.finish(client, flow: flow, phone: "+4312345678")
            #expect(other.status == .badRequest, "the verified phone must be the traits' phone")
            let weak = try await SignupFixture.finish(client, flow: flow, password: "12")
            #expect(weak.status == .badRequest && SignupFixture.messageIDs(weak) == [4_000_005])
            let missing = try await client.call(.post, "/a/self-service/registration?flow=\(flow)", headers: SignupFixture.json,
                                                body: ["method": "password", "traits": ["phone": SignupFixture.phone]])
            #expect(Set(SignupFixture.messageIDs(missing)) == [4_000_002])
            #expect(try await SignupFixture.checkCode(client, flow: flow, otp: "123456").status == .conflict, "already verified")
            #expect(try await SignupFixture.finish(client, flow: flow, email: "pay@example.com").status == .ok)
            #expect(try await SignupFixture.finish(client, flow: flow).status == .gone, "a used flow")

            let samePhone = try await SignupFixture.verifiedFlow(app, client)
            let duplicate = try await SignupFixture.finish(client, flow: samePhone)
            #expect(duplicate.status == .badRequest && SignupFixture.messageIDs(duplicate) == [4_000_007])
            let sameEmail = try await SignupFixture.verifiedFlow(app, client, phone: "+4366012345678")
            // An unverified email claim reserves nothing (the hardening issue): a second sign-up may claim it too.
            let claimedAgain = try await SignupFixture.finish(client, flow: sameEmail, phone: "+4366012345678", email: "PAY@example.com")
            #expect(claimedAgain.status == .ok, "\(claimedAgain.json)")
            #expect(try await app.store.outboxMessages().contains { $0.template == "email_verification" && $0.recipient == "pay@example.com" })

            let late = try await SignupFixture.verifiedFlow(app, client, phone: "+4366099999999")
            clock.advance(61 * 60)
            let expired = try await SignupFixture.finish(client, flow: late, phone: "+4366099999999")
            #expect(expired.status == .gone && expired.failure?.id == "self_service_flow_expired")
        }
    }
}
