import Foundation
import LatchkeyAPI
import HummingbirdTesting
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// SSO hardening: the ID token's party and times, key rotation under a kept `kid`, and provider
/// errors kept from the app.
@Suite struct FederationHardeningTests {
    /// Attack: `azp`, `nbf` and `iat` were not checked, so a token issued to another party of the
    /// provider, or not valid yet, was accepted.
    @Test func theIDTokenIsCheckedForItsPartyAndTimes() async throws {
        try await withFederation { provider, _, client in
            let refused: [(String, FakeOIDCProvider.TokenTiming)] = [
                ("another party", .init(authorizedParty: "someone-else")),
                ("not valid yet", .init(notBefore: 600)),
                ("issued in the future", .init(issuedAt: 600)),
            ]
            for (what, timing) in refused {
                let answer = try await FederationFixture.metadata(client, code: provider.code(subject: "u", timing: timing))
                #expect(answer.status == .unauthorized && answer.failure?.id == "invalid_id_token", "\(what): \(answer.json)")
            }
            let accepted = try await FederationFixture.metadata(client, code: provider.code(
                subject: "u", email: "u@idp.example", timing: .init(authorizedParty: FakeOIDCProvider.clientID, notBefore: -10)))
            #expect(accepted.status == .ok, "\(accepted.json)")
        }
    }

    /// Attack: a provider rotates its key but keeps the `kid`, which would break SSO until a
    /// restart. A signature that does not verify makes the server fetch the keys once more (rate-limited).
    @Test func aKeyRotatedUnderTheSameKidIsFetchedAgain() async throws {
        let clock = TestClock(start: Date())
        try await withFederation(clock: clock) { provider, _, client in
            try await FederationFixture.enrolled(provider, client)
            provider.rotateKeysKeepingKid()
            clock.advance(11)
            let login = try await FederationFixture.login(client, code: provider.code(subject: "user-1", email: "ada@idp.example"))
            #expect(login.login?.sessionToken != nil, "\(login.json)")
        }
    }

    /// Attack: the provider's error text (status lines, connection errors) must not reach the
    /// app: it gets the catalogue's message; the detail goes to the server's log.
    @Test func providerErrorsDoNotReachTheApp() async throws {
        try await withFederation { provider, _, client in
            provider.mode = .down
            let down = try await FederationFixture.metadata(client, code: provider.code(subject: "u"))
            #expect(down.failure?.id == "provider_unavailable")
            #expect(down.failure?.message == ErrorKind.providerUnavailable.defaultMessage, "\(down.json)")
        }
        try await withServer(configure: {
            $0.issuer.identityProviders = [IdentityProviderSettings(
                id: "example", issuer: "http://127.0.0.1:9", clientId: "c", clientSecret: "s", redirectUri: "app:/cb", timeoutSeconds: 2)]
        }) { (_, client) async throws -> Void in
            let unreachable = try await FederationFixture.metadata(client, code: "code")
            #expect(unreachable.failure?.id == "provider_unavailable")
            #expect(unreachable.failure?.message == ErrorKind.providerUnavailable.defaultMessage, "\(unreachable.json)")
        }
    }

    /// Attack: without PKCE a code intercepted on its way to the app could be redeemed by anyone.
    /// The app sends its `code_verifier`; the server passes it to the token endpoint, and a provider
    /// that saw a challenge refuses the code without it.
    @Test func pkceVerifierGoesToTheProvider() async throws {
        try await withFederation { (provider, _, client) async throws -> Void in
            let verifier = String(repeating: "v", count: 20) + "-pkce-verifier-0123456789abc"
            func metadata(_ verifierSent: String?) async throws -> JSONAnswer {
                let code = provider.code(subject: "u", email: "u@idp.example", codeChallenge: FakeOIDCProvider.s256(verifier))
                var body: [String: String] = ["authorizationCode": code, "identityProvider": "example"]
                if let verifierSent { body["codeVerifier"] = verifierSent }
                return try await client.call(.post, "/v1/enrollment/customer-profile-metadata", body: body)
            }
            #expect(try await metadata(nil).failure?.id == "invalid_authorization_code")
            #expect(try await metadata(String(repeating: "w", count: 43)).failure?.id == "invalid_authorization_code")
            #expect(try await metadata("short").errorField == "codeVerifier")
            #expect(try await metadata(verifier).status == .ok)
        }
    }
}

