import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The storage contract of the portal: attempt counting and reset completion, on every engine.
@Suite struct ResetStoreContractTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    func prepared(_ store: any LatchkeyStore) async throws -> UserRecord {
        let user = StorageContractTests().user("reset@example.com")
        try await store.createUser(user, answers: [], tokens: [], messages: [])
        return user
    }

    func token(_ digest: String, _ purpose: TokenPurpose, user: UserRecord) -> TokenRecord {
        TokenRecord(digest: digest, purpose: purpose, userID: user.id, deviceID: nil, createdAt: Self.now,
                    expiresAt: Self.now.addingTimeInterval(600))
    }

    @Test(arguments: TestEnvironment.engines)
    func parallelAnswersNeverExceedTheLinksLimit(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await prepared(store)
            try await store.createToken(token("link", .passwordReset, user: user))
            let counted = await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        try? await store.reserveTokenAttempt(digest: "link", purpose: .passwordReset, now: Self.now, limit: 3)?.attempts
                    }
                }
                return await group.reduce(into: [Int]()) { if let value = $1 { $0.append(value) } }
            }
            #expect(counted.sorted() == [1, 2, 3])
            #expect(try await store.reserveTokenAttempt(digest: "link", purpose: .passcodeReset, now: Self.now, limit: 9) == nil,
                    "the purpose must match")
            #expect(try await store.reserveTokenAttempt(digest: "link", purpose: .passwordReset,
                                                        now: Self.now.addingTimeInterval(601), limit: 9) == nil, "expired")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func aGrantCompletesOneResetAndRestoresAFailureLock(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await prepared(store)
            let limits = AttemptLimits(wallet: 2, device: 3)
            try await store.linkDevice(userID: user.id, deviceID: "d1", deviceType: nil, now: Self.now)
            for _ in 0..<3 {
                _ = try await store.reserveAttempt(userID: user.id, deviceID: "d1", limits: AttemptLimits(wallet: 100, device: 3))
            }
            #expect(try await store.recordFailure(userID: user.id, deviceID: "d1", limits: limits, now: Date())
                == FailureOutcome(walletDeactivated: true, deviceDeactivated: true))
            try await store.createSession(SessionRecord(digest: "s1", userID: user.id, deviceID: "d1", createdAt: Self.now,
                                                        lastSeenAt: Self.now, expiresAt: Self.now.addingTimeInterval(3600)))
            try await store.createToken(token("grant", .passwordResetGrant, user: user))

            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        (try? await store.completeReset(grant: "grant", purpose: .passwordResetGrant, userID: user.id,
                                                        change: .password(hash: "new\(index)", keep: 4), limits: limits,
                                                        messages: [], now: Self.now)) ?? false
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
            let restored = try #require(try await store.user(id: user.id))
            #expect(restored.status == .active && restored.failedAttempts == 0 && restored.emailVerified)
            let device = try #require(try await store.device(userID: user.id, deviceID: "d1"))
            #expect(device.status == .active && device.failedAttempts == 0, "a device locked by failures is restored too")
            #expect(restored.passwordHash?.hasPrefix("new") == true)
            #expect(try await store.passwordHistory(userID: user.id, limit: 5) == ["h"])
            #expect(try await store.touchSession(digest: "s1", now: Self.now, idle: 3600) == nil, "sessions end")
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func anOperatorDeactivationSurvivesAReset(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = try await prepared(store)
            try await store.setUserStatus(userID: user.id, status: .deactivated, now: Date())
            try await store.createToken(token("grant", .passcodeResetGrant, user: user))
            #expect(try await store.completeReset(grant: "grant", purpose: .passcodeResetGrant, userID: user.id,
                                                  change: .passcode(hash: "pin"), limits: AttemptLimits(wallet: 5, device: 5),
                                                  messages: [], now: Self.now))
            let after = try #require(try await store.user(id: user.id))
            #expect(after.status == .deactivated && after.passcodeHash == "pin")
        }
    }
}
