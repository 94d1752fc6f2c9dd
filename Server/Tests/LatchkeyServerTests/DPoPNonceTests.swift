import Foundation
import LatchkeyAPI
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The server's DPoP nonce binds freshness to the key it was handed to.
@Suite struct DPoPNonceTests {
    static let nonceHeader = HTTPField.Name("DPoP-Nonce")!

    /// Attack: a nonce one client saw, used in another's proofs (or in proofs signed ahead of
    /// time). A nonce works only in proofs by the key it was handed to, for 60–120 seconds.
    @Test(arguments: TestEnvironment.engines)
    func aNonceIsTheKeysOwnAndShortLived(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: { $0.publicURL = TestDeviceKey.base }) { app, client in
            let owner = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: owner)
            let path = "/v1/auth/login/pin"
            func login(_ key: TestDeviceKey, nonce: String?) async throws -> JSONAnswer {
                try await client.call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path, nonce: nonce, iat: clock.now)),
                                      body: ["pin": "314159"])
            }
            let first = try await login(owner, nonce: nil)
            #expect(first.failure?.id == "use_dpop_nonce")
            let ownersNonce = try #require(first.headers[Self.nonceHeader])

            // Another key cannot use the owner's nonce; it is told its own.
            let other = TestDeviceKey()
            let borrowed = try await login(other, nonce: ownersNonce)
            #expect(borrowed.status == .unauthorized)
            #expect(borrowed.failure?.id == "use_dpop_nonce")
            #expect(borrowed.headers[Self.nonceHeader] != ownersNonce)

            // The owner's nonce works within its window and the next…
            clock.advance(50)
            let inTime = try await login(owner, nonce: ownersNonce)
            #expect(inTime.status == .ok, "\(inTime.json)")
            // …and not two minutes later.
            clock.advance(71)
            let late = try await login(owner, nonce: ownersNonce)
            #expect(late.status == .unauthorized)
            #expect(late.failure?.id == "use_dpop_nonce")
            let renewed = try #require(late.headers[Self.nonceHeader])
            #expect(renewed != ownersNonce)
            #expect(try await login(owner, nonce: renewed).status == .ok)
        }
    }
}
