import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The storage contract of SSO, on every engine.
@Suite struct FederationStoreContractTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    @Test(arguments: TestEnvironment.engines)
    func aNonceRegistersOneWalletAndASubjectLinksToOne(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            for digest in ["n1", "n2"] {
                try await store.createFederationNonce(FederationNonceRecord(
                    digest: digest, providerID: "idp", subject: "sub-1", email: "a@idp.example", emailVerified: true,
                    createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(600)))
            }
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let user = StorageContractTests().user("user\(index)@example.com")
                        do {
                            _ = try await store.createFederatedUser(nonceDigest: "n1", user: user, answers: [], tokens: [], messages: [],
                                                                    replacingPending: false, now: Self.now)
                            return "created"
                        } catch StoreError.nonceNotUsable {
                            return "used"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.sorted() == ["created", "used", "used", "used", "used", "used"], "\(outcomes)")
            #expect(try await store.federatedUser(providerID: "idp", subject: "sub-1") != nil)
            await #expect(throws: StoreError.subjectLinked) {
                _ = try await store.createFederatedUser(nonceDigest: "n2", user: StorageContractTests().user("other@example.com"),
                                                        answers: [], tokens: [], messages: [], replacingPending: false, now: Self.now)
            }
            #expect(try await store.user(issuer: "default", emailNormalized: "other@example.com") == nil, "nothing half written")
            #expect(try await store.federationNonce(digest: "n2", now: Self.now) != nil, "a refused registration leaves the nonce")
            #expect(try await store.federationNonce(digest: "n2", now: Self.now.addingTimeInterval(601)) == nil, "expired")
        }
    }
}
