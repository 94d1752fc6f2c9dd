import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The storage contract: every engine must pass all of it.
@Suite struct StorageContractTests {
    func user(_ email: String, issuer: String = "default") -> UserRecord {
        UserRecord(id: SecureRandom.identifier(), issuer: issuer, email: email, emailNormalized: email.lowercased(),
                   firstName: "A", lastName: "B", phone: nil, externalId: nil, passwordHash: "h", passcodeHash: "p",
                   emailVerified: false, createdAt: Date(timeIntervalSince1970: 1_000), updatedAt: Date(timeIntervalSince1970: 1_000))
    }

    @Test(arguments: TestEnvironment.engines)
    func migrationsAreVersionedAndIdempotent(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            #expect(try await store.appliedMigrations() == Array(1...23))
            #expect(try await store.migrate().isEmpty)
            try await store.ping()
        }
    }

    /// The customer's languages are stored with the wallet as the header value they were given in.
    @Test(arguments: TestEnvironment.engines)
    func storesTheCustomersLanguages(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            var record = user("lang@example.com")
            record.languages = "de, en"
            try await store.createUser(record, answers: [], tokens: [], messages: [])
            #expect(try await store.user(id: record.id)?.languages == "de, en")
            #expect(try await store.user(id: record.id)?.languagePreference.languages == ["de", "en"])
            let silent = user("silent@example.com")
            try await store.createUser(silent, answers: [], tokens: [], messages: [])
            #expect(try await store.user(id: silent.id)?.languages == nil)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func createsAndReadsUsersWithAnswersAtomically(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let record = user("Mixed@Example.com")
            try await store.createUser(record, answers: [MFAAnswerRecord(question: "Q?", answerHash: "x")], tokens: [], messages: [])
            #expect(try await store.user(id: record.id) == record)
            #expect(try await store.user(issuer: "default", emailNormalized: "mixed@example.com")?.id == record.id)
            #expect(try await store.mfaAnswers(userID: record.id) == [MFAAnswerRecord(question: "Q?", answerHash: "x")])

            let duplicate = user("mixed@example.com")
            let message = OutboxMessage(id: "m1", channel: "email", recipient: "x", template: "t", subject: "s",
                                        sealedPayload: "p", createdAt: Date(), nextAttemptAt: Date())
            await #expect(throws: StoreError.emailInUse) {
                try await store.createUser(duplicate, answers: [MFAAnswerRecord(question: "Q?", answerHash: "y")], tokens: [],
                                           messages: [message])
            }
            #expect(try await store.user(id: duplicate.id) == nil)
            #expect(try await store.mfaAnswers(userID: duplicate.id).isEmpty)
            #expect(try await store.outboxMessages().isEmpty, "a refused registration writes nothing")
            try await store.createUser(user("mixed@example.com", issuer: "other"), answers: [], tokens: [], messages: [])
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func parallelCreatesOfOneEmailLeaveOne(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        (try? await store.createUser(user(index.isMultiple(of: 2) ? "same@x.io" : "SAME@x.io"), answers: [],
                                                     tokens: [], messages: [])) != nil
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func tokensAreSingleUseAndExpire(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let owner = user("t@x.io")
            let now = Date(timeIntervalSince1970: 2_000_000)
            let live = TokenRecord(digest: "d1", purpose: .registrationNonce, userID: owner.id, deviceID: "dev",
                                   createdAt: now, expiresAt: now.addingTimeInterval(600))
            let expired = TokenRecord(digest: "d2", purpose: .registrationNonce, userID: owner.id, deviceID: nil,
                                      createdAt: now, expiresAt: now.addingTimeInterval(-1))
            try await store.createUser(owner, answers: [], tokens: [live, expired], messages: [])
            #expect(try await store.consumeToken(digest: "d1", purpose: .emailVerification, now: now) == nil)
            let winners = try await withThrowingTaskGroup(of: TokenRecord?.self) { group in
                for _ in 0..<10 { group.addTask { try await store.consumeToken(digest: "d1", purpose: .registrationNonce, now: now) } }
                return try await group.reduce(into: []) { $0.append($1) }.compactMap { $0 }
            }
            #expect(winners.count == 1)
            #expect(winners.first?.deviceID == "dev")
            #expect(try await store.consumeToken(digest: "d2", purpose: .registrationNonce, now: now) == nil)
            #expect(try await store.consumeToken(digest: "unknown", purpose: .registrationNonce, now: now) == nil)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func outboxLeasesRetriesAndDelivers(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let now = Date(timeIntervalSince1970: 3_000_000)
            let messages = (0..<3).map {
                OutboxMessage(id: "m\($0)", channel: "sms", recipient: "+1555000\($0)", template: "otp", subject: "s",
                              sealedPayload: "sealed\($0)", createdAt: now.addingTimeInterval(Double($0)), nextAttemptAt: now)
            }
            try await store.enqueue(messages)
            let first = try await store.claimMessages(now: now, lease: 60, limit: 2)
            #expect(first.map(\.id) == ["m0", "m1"])
            #expect(try await store.claimMessages(now: now, lease: 60, limit: 10).map(\.id) == ["m2"], "leased rows are skipped")
            #expect(try await store.claimMessages(now: now, lease: 60, limit: 10).isEmpty)
            try await store.markDelivered(id: "m0", at: now)
            try await store.markFailed(id: "m1", attempts: 1, nextAttemptAt: now.addingTimeInterval(30), error: "HTTP 500",
                                       giveUp: false, now: now)
            try await store.markFailed(id: "m2", attempts: 5, nextAttemptAt: now, error: "gone", giveUp: true, now: now)
            #expect(try await store.claimMessages(now: now.addingTimeInterval(10), lease: 60, limit: 10).isEmpty)
            #expect(try await store.claimMessages(now: now.addingTimeInterval(31), lease: 60, limit: 10).map(\.id) == ["m1"])
            let delivered = try #require(try await store.outboxMessage(id: "m0"))
            #expect(delivered.deliveredAt == now)
            #expect(delivered.sealedPayload == nil)
            #expect(try await store.outboxMessage(id: "m1")?.lastError == "HTTP 500")
            #expect(try await store.outboxMessage(id: "m2")?.failedAt == now)
        }
    }

    @Test func undeliveredMessagesSurviveARestart() async throws {
        let url = try await TestEnvironment.freshDatabase("sqlite")
        let now = Date()
        try await StoreFactory.withStore(url, logger: TestEnvironment.logger) { first in
            try await first.enqueue([OutboxMessage(id: "keep", channel: "email", recipient: "a@b.co", template: "t", subject: "s",
                                                   sealedPayload: "x", createdAt: now, nextAttemptAt: now)])
        }
        let claimed = try await StoreFactory.withStore(url, logger: TestEnvironment.logger) { second in
            try await second.claimMessages(now: now, lease: 60, limit: 10).map(\.id)
        }
        #expect(claimed == ["keep"])
    }
}
