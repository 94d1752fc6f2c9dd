import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Device-bound sessions (RFC 9449) through HTTP: the attacks they stop and the proofs they refuse.
@Suite struct DPoPTests {
    static let nonceHeader = HTTPField.Name("DPoP-Nonce")!

    /// A server whose public URL is `TestDeviceKey.base`, so proofs can name the request's `htu`.
    func withBoundServer(engine: String = "sqlite",
                         _ body: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol) async throws -> Void) async throws {
        try await withServer(engine: engine, configure: { $0.publicURL = TestDeviceKey.base }, body)
    }

    /// Registers and logs in with the registration nonce, proving `key`: the first try learns the
    /// server's DPoP nonce from the 401, the second is bound. Answers the session token.
    func boundLogin(_ app: LatchkeyApplication, _ client: any TestClientProtocol, key: TestDeviceKey) async throws -> String {
        let registered = try await client.dpopCall(key, .post, "/v1/enrollment/users", body: registrationBody())
        let nonce = try #require(registered.registration?.nonce)
        try await AuthFixture.verifyEmail(app, client)
        let path = "/v1/auth/login/nonce"
        let first = try await client.call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path)), body: ["nonce": nonce])
        #expect(first.status == .unauthorized)
        #expect(first.failure?.id == "use_dpop_nonce")
        #expect(first.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="use_dpop_nonce""#) == true)
        let serverNonce = try #require(first.headers[Self.nonceHeader])
        let login = try await client.call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path, nonce: serverNonce)),
                                          body: ["nonce": nonce])
        #expect(login.status == .ok, "\(login.json)")
        #expect(login.login?.tokenType == .dPoP)
        return try #require(login.login?.sessionToken)
    }

    /// Attack 3 of the device-binding review: a stolen session token worked from any client.
    @Test(arguments: TestEnvironment.engines)
    func aStolenBoundTokenIsRefusedWithoutTheDeviceKey(engine: String) async throws {
        try await withBoundServer(engine: engine) { app, client in
            let device = TestDeviceKey()
            let token = try await boundLogin(app, client, key: device)
            let path = "/v1/auth/session"
            let own = try await client.call(.get, path, headers: appHeaders().with(proof: device.proof("GET", path, token: token),
                                                                                  dpopToken: token))
            #expect(own.status == .ok, "\(own.json)")
            #expect(own.headers[Self.nonceHeader] != nil)

            // The thief has the token but not the key.
            let asBearer = try await client.call(.get, path, headers: appHeaders(session: token))
            #expect(asBearer.status == .unauthorized)
            #expect(asBearer.failure?.id == "invalid_token")
            #expect(asBearer.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_token""#) == true)
            let thief = TestDeviceKey()
            let otherKey = try await client.call(.get, path, headers: appHeaders().with(proof: thief.proof("GET", path, token: token),
                                                                                       dpopToken: token))
            #expect(otherKey.status == .unauthorized)
            #expect(otherKey.failure?.id == "invalid_token")
            let noProof = try await client.call(.get, path, headers: { var h = appHeaders(); h[.authorization] = "DPoP \(token)"; return h }())
            #expect(noProof.status == .unauthorized)
            #expect(noProof.failure?.id == "invalid_dpop_proof")
            // The owner is unaffected.
            let again = try await client.call(.get, path, headers: appHeaders().with(proof: device.proof("GET", path, token: token),
                                                                                    dpopToken: token))
            #expect(again.status == .ok)
        }
    }

    /// Malformed, expired, future-dated, replayed or mismatched proofs answer 401 with a DPoP
    /// error, never 500, and count as no failed attempt of any wallet.
    @Test(arguments: TestEnvironment.engines)
    func badProofsAreRefusedWithoutTouchingAnyCounter(engine: String) async throws {
        try await withBoundServer(engine: engine) { app, client in
            let device = TestDeviceKey()
            let token = try await boundLogin(app, client, key: device)
            let path = "/v1/auth/session"
            func check(_ proof: String, _ why: Comment) async throws {
                let answer = try await client.call(.get, path, headers: appHeaders().with(proof: proof, dpopToken: token))
                #expect(answer.status == .unauthorized, why)
                #expect(answer.failure?.id == "invalid_dpop_proof", why)
                #expect(answer.failure?.field == "DPoP", why)
                #expect(answer.headers[.wwwAuthenticate]?.hasPrefix(#"DPoP error="invalid_dpop_proof""#) == true, why)
            }
            try await check("not.a.jws", "malformed")
            try await check(String(repeating: "a", count: 5000), "too long")
            try await check(device.proof("POST", path, token: token), "wrong htm")
            try await check(device.proof("GET", "/v1/profile", token: token), "wrong htu path")
            try await check(device.proof("GET", path, token: token, htu: "https://evil.example" + path), "wrong htu host")
            try await check(device.proof("GET", path, token: token, iat: Date().addingTimeInterval(-300)), "expired")
            try await check(device.proof("GET", path, token: token, iat: Date().addingTimeInterval(300)), "future-dated")
            try await check(device.proof("GET", path, token: token, typ: "JWT"), "wrong typ")
            try await check(device.proof("GET", path, token: token, alg: "HS256"), "unsupported alg")
            try await check(device.proof("GET", path, token: token, extraJWK: ["d": TestDeviceKey.b64(device.key.rawRepresentation)]),
                            "a private key in jwk")
            try await check(device.proof("GET", path, token: token, ath: "d3Jvbmc"), "wrong ath")
            // The token's hash as sent is compared character by character while it is encoded.
            let ath = TestDeviceKey.b64(SHA256.hash(data: Data(token.utf8)))
            try await check(device.proof("GET", path, token: token, ath: ath + "A"), "ath with a character more")
            try await check(device.proof("GET", path, token: token, ath: String(ath.dropLast())), "ath with a character less")
            try await check(device.proof("GET", path, token: token, ath: ath + "="), "ath padded")
            try await check(device.proof("GET", path, token: token, ath: String(ath.dropLast()) + (ath.hasSuffix("A") ? "B" : "A")),
                            "ath with another last character")
            try await check(device.proof("GET", path, token: token, ath: TestDeviceKey.b64(SHA256.hash(data: Data((token + "x").utf8)))),
                            "ath of another token")
            try await check(device.proof("GET", path), "no ath")
            try await check(device.proof("GET", path, token: token, signer: TestDeviceKey().key), "signed by another key")
            let once = device.proof("GET", path, token: token, jti: "replayed-jti")
            #expect(try await client.call(.get, path, headers: appHeaders().with(proof: once, dpopToken: token)).status == .ok)
            try await check(once, "replayed")

            // A bad proof on a login is refused before the credential is looked at.
            for _ in 0..<7 {
                let login = try await client.call(.post, "/v1/auth/login/password",
                                                  headers: appHeaders().with(proof: device.proof("GET", "/v1/auth/login/password")),
                                                  body: ["username": "ada@example.com", "password": "wrong-password-1"])
                #expect(login.failure?.id == "invalid_dpop_proof")
            }
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.status == .active)
            #expect(user.failedAttempts == 0)
        }
    }

    /// Requests without a proof keep today's behaviour: the session is a bearer token.
    @Test func aLoginWithoutAProofOpensABearerSession() async throws {
        try await withBoundServer { app, client in
            let nonce = try await AuthFixture.register(client)
            try await AuthFixture.verifyEmail(app, client)
            let login = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": nonce])
            #expect(login.login?.tokenType == .bearer)
            let token = try #require(login.login?.sessionToken)
            #expect(try await client.call(.get, "/v1/auth/session", headers: appHeaders(session: token)).status == .ok)
            let device = TestDeviceKey()
            let asDPoP = try await client.call(.get, "/v1/auth/session",
                                               headers: appHeaders().with(proof: device.proof("GET", "/v1/auth/session", token: token),
                                                                          dpopToken: token))
            #expect(asDPoP.failure?.id == "invalid_token")
        }
    }

    /// A proof of a credential call is accepted once across replicas: replayed to a second server
    /// on the same database (same pepper, so the same nonces), it is refused.
    @Test(arguments: TestEnvironment.engines)
    func aCredentialCallsProofIsRefusedOnAnotherReplica(engine: String) async throws {
        let database = try await TestEnvironment.freshDatabase(engine)
        var configuration = try TestEnvironment.configuration(database: database)
        configuration.publicURL = TestDeviceKey.base
        let second = try await TestEnvironment.application(configuration)
        try await withServer(configure: { $0.database = database; $0.publicURL = TestDeviceKey.base }) { app, client in
            let device = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: device)
            let path = "/v1/auth/login/pin"
            let first = try await client.call(.post, path, headers: appHeaders().with(proof: device.proof("POST", path)),
                                              body: ["pin": AuthFixture.pin])
            let nonce = try #require(first.headers[Self.nonceHeader])
            let proof = device.proof("POST", path, nonce: nonce)
            let login = try await client.call(.post, path, headers: appHeaders().with(proof: proof), body: ["pin": AuthFixture.pin])
            #expect(login.status == .ok, "\(login.json)")
            try await second.application.test(.router) { otherClient in
                let replayed = try await otherClient.call(.post, path, headers: appHeaders().with(proof: proof),
                                                          body: ["pin": AuthFixture.pin])
                #expect(replayed.status == .unauthorized)
                #expect(replayed.failure?.id == "invalid_dpop_proof")
                let fresh = try await otherClient.call(.post, path, headers: appHeaders().with(proof: device.proof("POST", path, nonce: nonce)),
                                                       body: ["pin": AuthFixture.pin])
                #expect(fresh.status == .ok, "the other replica accepts the shared nonce: \(fresh.json)")
            }
        }
        try await second.store.close()
    }
}
