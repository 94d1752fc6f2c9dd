import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Operators' API keys, on every engine — shown once, stored as digests, refused once
/// revoked or expired, their use recorded to the minute, every change in the audit trail.
@Suite struct OperatorKeyTests {
    static let start = Date(timeIntervalSince1970: 2_000_000_000)

    /// The keys of `store` on a clock the test moves.
    static func keys(_ store: any LatchkeyStore) -> (OperatorKeys, TestClock) {
        let clock = TestClock(start: start)
        return (OperatorKeys(store: store, now: { clock.now }), clock)
    }

    @Test(arguments: TestEnvironment.engines)
    func aKeyAuthenticatesUntilRevokedOrExpired(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let (keys, clock) = Self.keys(store)
            let (record, key) = try await keys.create(name: "support-desk", role: .support, days: 30)
            #expect(key.hasPrefix("lkop_\(record.id)_") && key.count > 60)
            #expect(record.digest == SecureRandom.digest(key) && !record.digest.contains(key))
            #expect(try await keys.list() == [record], "the list holds the digest, never the key")

            #expect(try await keys.authenticate(key)?.role == .support)
            #expect(try await keys.authenticate(key + "x") == nil, "another secret")
            #expect(try await keys.authenticate(String(key.dropLast())) == nil)
            #expect(try await keys.authenticate("Bearer " + key) == nil)
            #expect(try await keys.authenticate(record.digest) == nil, "the stored digest is no key")

            clock.advance(30 * 86_400 - 1)
            #expect(try await keys.authenticate(key) != nil, "the last second of its life")
            clock.advance(1)
            #expect(try await keys.authenticate(key) == nil, "expired")

            let (other, otherKey) = try await keys.create(name: "backend", role: .viewer)
            try await keys.revoke(id: other.id)
            #expect(try await keys.authenticate(otherKey) == nil, "revoked")
            await #expect(throws: OperatorError.unknownKey(other.id)) { try await keys.revoke(id: other.id) }
            await #expect(throws: OperatorError.unknownKey("nope")) { try await keys.revoke(id: "nope") }
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func aKeysUseIsRecordedOnceAMinute(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let (keys, clock) = Self.keys(store)
            let (record, key) = try await keys.create(name: "desk", role: .viewer)
            #expect(try await keys.list().first?.lastUsedAt == nil)
            _ = try await keys.authenticate(key)
            #expect(try await keys.list().first?.lastUsedAt == Self.start)
            clock.advance(59)
            _ = try await keys.authenticate(key)
            #expect(try await keys.list().first?.lastUsedAt == Self.start, "within the minute: no write")
            clock.advance(1)
            _ = try await keys.authenticate(key)
            #expect(try await keys.list().first?.lastUsedAt == Self.start.addingTimeInterval(60))
            // Parallel calls of one key, a minute and more later: the use is recorded (the
            // update's condition lets one of them write).
            clock.advance(120)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await keys.authenticate(key) } }
                try await group.waitForAll()
            }
            #expect(try await keys.list().first { $0.id == record.id }?.lastUsedAt == Self.start.addingTimeInterval(180))
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func keyChangesAreAuditedWithoutTheKey(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let (keys, clock) = Self.keys(store)
            let (record, key) = try await keys.create(name: "desk", role: .admin, days: 1)
            clock.advance(1)
            try await keys.revoke(id: record.id)
            clock.advance(1)
            await #expect(throws: OperatorError.unknownKey(record.id)) { try await keys.revoke(id: record.id) }
            let events = try await store.auditEvents(after: nil, since: nil, limit: 10)
            #expect(events.map(\.type) == [.operatorCommand, .operatorCommand, .operatorCommand])
            #expect(events.map { $0.details["command"] ?? "" } == ["operator key created \(record.id) admin desk",
                                                                   "operator key revoked \(record.id)", "operator key revoked \(record.id)"])
            #expect(events.map(\.outcome) == [.success, .success, .failure], "revoking it again revoked nothing")
            #expect(events.allSatisfy { $0.actor == .operator && !"\($0)".contains(key.suffix(43)) })
            await #expect(throws: OperatorError.self) { _ = try await keys.create(name: " ", role: .viewer) }
            await #expect(throws: OperatorError.self) { _ = try await keys.create(name: "desk\tadmin", role: .viewer) }
            await #expect(throws: OperatorError.self) { _ = try await keys.create(name: "desk\nadmin", role: .viewer) }
            await #expect(throws: OperatorError.self) { _ = try await keys.create(name: "x", role: .viewer, days: 0) }
            await #expect(throws: OperatorError.self) { _ = try await keys.create(name: "x", role: .viewer, days: 367) }
            #expect(try await keys.list().count == 1, "a refused request writes nothing")
        }
    }

    @Test func rolesIncludeTheOnesBelow() {
        #expect(OperatorRole.admin.includes(.support) && OperatorRole.admin.includes(.viewer) && OperatorRole.support.includes(.viewer))
        #expect(!OperatorRole.viewer.includes(.support) && !OperatorRole.support.includes(.admin))
    }
}
