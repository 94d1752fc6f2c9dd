import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import HummingbirdTesting
import LatchkeyTestSupport
import Testing

@Suite struct SecurityTests {
    let hasher = SecretHasher(settings: HashingSettings(logN: 10, r: 8, p: 1), pepper: SymmetricKey(size: .bits256))

    @Test func hashesRecordTheirParametersAndSalt() async throws {
        let first = try await hasher.hash("correct-horse")
        let second = try await hasher.hash("correct-horse")
        #expect(first.hasPrefix("scrypt$10$8$1$"))
        #expect(first != second, "each hash has its own salt")
        #expect(!first.contains("correct-horse"))
        #expect(try await hasher.verify("correct-horse", against: first))
        #expect(try await !hasher.verify("correct-horsf", against: first))
        #expect(try await !hasher.verify("correct-horse", against: "scrypt$10$8$1$garbage"))
    }

    /// Import ids (UUID v7): the version and variant bits, lower case, and later ones sort after.
    @Test func orderedIdentifiersAreVersionSevenAndSortByTime() {
        let first = SecureRandom.orderedIdentifier(at: Date(timeIntervalSince1970: 1_700_000_000))
        let second = SecureRandom.orderedIdentifier(at: Date(timeIntervalSince1970: 1_700_000_000.002))
        #expect(first.count == 36 && first == first.lowercased() && UUID(uuidString: first) != nil)
        #expect(first.hasPrefix("018bcfe5-6800-7"), "48 bits of milliseconds, then version 7")
        #expect("89ab".contains(first[first.index(first.startIndex, offsetBy: 19)]), "RFC 9562 variant")
        #expect(first < second)
        #expect(SecureRandom.orderedIdentifier(at: Date()) != SecureRandom.orderedIdentifier(at: Date()))
    }

    @Test func thePepperIsPartOfTheHash() async throws {
        let encoded = try await hasher.hash("314159")
        let otherPepper = SecretHasher(settings: hasher.settings, pepper: SymmetricKey(size: .bits256))
        #expect(try await !otherPepper.verify("314159", against: encoded))
    }

    @Test func oldParametersStillVerifyAndAskForAnUpgrade() async throws {
        let pepper = SymmetricKey(size: .bits256)
        let old = SecretHasher(settings: HashingSettings(logN: 8, r: 8, p: 1), pepper: pepper)
        let current = SecretHasher(settings: HashingSettings(logN: 10, r: 8, p: 1), pepper: pepper)
        let encoded = try await old.hash("pw")
        #expect(try await current.verify("pw", against: encoded))
        #expect(current.needsUpgrade(encoded))
        #expect(!current.needsUpgrade(try await current.hash("pw")))
    }

    @Test func weakerHashesAreUpgradedAtTheNextSuccessfulLogin() async throws {
        let database = try await TestEnvironment.freshDatabase("sqlite")
        var weak = try TestEnvironment.configuration(database: database)
        weak.hashing = HashingSettings(logN: 8, r: 8, p: 1)
        let old = try await TestEnvironment.application(weak)
        try await old.application.test(.router) { client in _ = try await AuthFixture.enrolledSession(old, client) }
        try await old.store.close()
        try await withServer(configure: { $0.database = database }) { app, client in
            let before = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(before.passwordHash?.hasPrefix("scrypt$8$") == true)
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)
            #expect(try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin]).login?.sessionToken != nil)
            let after = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(after.passwordHash?.hasPrefix("scrypt$10$8$1$") == true)
            #expect(after.passcodeHash?.hasPrefix("scrypt$10$8$1$") == true)
            #expect(after.passwordUpdatedAt == before.passwordUpdatedAt, "the same password, not a change")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "the upgraded hash verifies")
        }
    }

    @Test func tokensAreLongRandomAndStoredAsDigests() {
        let tokens = (0..<100).map { _ in SecureRandom.token() }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 43 }, "32 bytes, base64url")
        #expect(SecureRandom.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equal([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equal([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equal([1, 2] as [UInt8], [1, 2, 3] as [UInt8]))
    }

    @Test func pepperIsGeneratedOnceAndReused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-\(UUID().uuidString)/pepper").path
        var settings = SecretSettings()
        settings.pepperFile = path
        let first = try Pepper.load(settings: settings, environment: [:], logger: .init(label: "t"))
        let second = try Pepper.load(settings: settings, environment: [:], logger: .init(label: "t"))
        #expect(first == second)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let fromEnvironment = try Pepper.load(settings: settings, environment: ["LATCHKEY_PEPPER": Data(repeating: 1, count: 32).base64EncodedString()],
                                              logger: .init(label: "t"))
        #expect(fromEnvironment != first)
        #expect(throws: ConfigurationError.self) {
            try Pepper.load(settings: settings, environment: ["LATCHKEY_PEPPER": "c2hvcnQ="], logger: .init(label: "t"))
        }
    }
}
