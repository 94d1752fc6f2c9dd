import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The storage contract of phone sign-up, on every engine.
@Suite struct SignupStoreContractTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    func flow(_ id: String = SecureRandom.identifier()) -> FlowRecord {
        FlowRecord(id: id, issuer: "default", kind: .registration, requestURL: "http://x", createdAt: Self.now,
                   expiresAt: Self.now.addingTimeInterval(3600))
    }

    func sms(_ id: String) -> OutboxMessage {
        OutboxMessage(id: id, channel: "sms", recipient: "+4312345678", template: "otp", subject: "s", sealedPayload: "p",
                      createdAt: Self.now, nextAttemptAt: Self.now)
    }

    @Test(arguments: TestEnvironment.engines)
    func codeSendsKeepToTheirLimitsAndANewNumberNeedsVerifyingAgain(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let record = flow()
            try await store.createFlow(record)
            let limits = OTPSendLimits(interval: 30, maxSends: 2)
            func send(_ phone: String, at offset: TimeInterval, _ id: String) async throws -> Bool {
                try await store.recordOTP(flowID: record.id, phone: phone, digest: "d\(id)", expiresAt: Self.now.addingTimeInterval(600),
                                          limits: limits, message: sms(id), now: Self.now.addingTimeInterval(offset))
            }
            #expect(try await send("+4312345678", at: 0, "1"))
            #expect(!(try await send("+4312345678", at: 10, "2")), "too soon")
            _ = try await store.reserveOTPAttempt(flowID: record.id, now: Self.now, limit: 5)
            try await store.markPhoneVerified(flowID: record.id, now: Self.now)
            #expect(try await send("+4387654321", at: 40, "3"))
            let after = try #require(try await store.flow(id: record.id))
            #expect(after.phone == "+4387654321" && after.phoneVerifiedAt == nil && after.otpAttempts == 1 && after.otpSends == 2)
            #expect(!(try await send("+4387654321", at: 100, "4")), "no more sends")
            #expect(try await store.outboxMessages().map(\.id).sorted() == ["1", "3"], "a refused send queues nothing")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func parallelRegistrationsOfOnePhoneLeaveOne(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let flows = (0..<6).map { _ in flow() }
            for record in flows {
                try await store.createFlow(record)
                #expect(try await store.recordOTP(flowID: record.id, phone: "+4312345678", digest: "d", expiresAt: Self.now.addingTimeInterval(600),
                                                  limits: OTPSendLimits(interval: 0, maxSends: 5), message: sms(record.id), now: Self.now))
                try await store.markPhoneVerified(flowID: record.id, now: Self.now)
            }
            let outcomes = await withTaskGroup(of: String.self) { group in
                for record in flows {
                    group.addTask {
                        let user = UserRecord(id: SecureRandom.identifier(), issuer: "default", email: "",
                                              emailNormalized: "phone:+4312345678:\(record.id)", firstName: "A", lastName: "B",
                                              phone: "+4312345678", externalId: nil, passwordHash: "h", passcodeHash: nil,
                                              emailVerified: false, createdAt: Self.now, updatedAt: Self.now, phoneNormalized: "+4312345678")
                        let session = SessionRecord(digest: SecureRandom.identifier(), userID: user.id, deviceID: nil, createdAt: Self.now,
                                                    lastSeenAt: Self.now, expiresAt: Self.now.addingTimeInterval(60))
                        do {
                            try await store.completeRegistration(flowID: record.id, user: user, deviceID: nil, session: session,
                                                                 tokens: [], messages: [], now: Self.now)
                            return "created"
                        } catch StoreError.phoneInUse {
                            return "phoneInUse"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "created" }.count == 1)
            #expect(outcomes.filter { $0 == "phoneInUse" }.count == 5, "\(outcomes)")
            let used = try await withThrowingTaskGroup(of: FlowRecord?.self) { group in
                for record in flows { group.addTask { try await store.flow(id: record.id) } }
                return try await group.reduce(into: [FlowRecord]()) { if let flow = $1 { $0.append(flow) } }
            }
            #expect(used.filter { $0.usedAt != nil }.count == 1, "a refused registration leaves its flow unused")
        }
    }
}
