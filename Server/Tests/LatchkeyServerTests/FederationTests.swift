import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// SSO registration and federated login against an in-process OpenID Connect provider.
@Suite struct FederationTests {
    @Test(arguments: TestEnvironment.engines)
    func ssoRegistrationThenFederatedLoginFromTheSameDevice(engine: String) async throws {
        try await withFederation(engine: engine) { provider, _, client in
            let code = provider.code(subject: "user-1", email: "ada@idp.example")
            let metadata = try await FederationFixture.metadata(client, code: code, requested: ["given_name", "nickname"])
            #expect(metadata.status == .ok, "\(metadata.json)")
            let profile = try #require(metadata.decoded(RetrieveCustomerProfileMetaDataResponse.self))
            // The provider's claims, as the issuer's backend reads them (`customerInfoJson`).
            struct Claims: Decodable { let sub: String }
            let claims = try JSONDecoder().decode(Claims.self, from: Data(try #require(profile.customerInfoJson).utf8))
            #expect(claims.sub == "user-1")
            #expect(profile.isCustomerSecurityProfileExists == false)
            #expect(profile.deviceUniqueId == "device-1" && profile.identityProvider == "example")
            let requested = try #require(profile.additionalInformation)
            #expect(requested.first { $0.additionalDataKey == "given_name" }?.additionalDataValue == "Ada")
            #expect(requested.first { $0.additionalDataKey == "nickname" }?.additionalDataValue == nil)
            #expect(try await FederationFixture.metadata(client, code: code).errorCode == 401, "a used code is refused by the provider")

            let nonce = profile.nonce
            #expect(try await FederationFixture.register(client, nonce: "forged-nonce").errorCode == 401)
            let registered = try await FederationFixture.register(client, nonce: nonce)
            #expect(registered.status == .created, "\(registered.json)")
            #expect(registered.decoded(RegisterCustomerResponse.self)?.customerUri.hasPrefix("urn:latchkey:customer:") == true)
            #expect(registered.decoded(RegisterCustomerResponse.self)?.additionalCustomerInformation.count == 1)
            let reused = try await FederationFixture.register(client, nonce: nonce, email: "other@idp.example")
            #expect(reused.errorCode == 401 && reused.status == .unauthorized, "the nonce is single use")

            let first = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": try #require(registered.decoded(RegisterCustomerResponse.self)?.nonce)])
            #expect(first.login?.sessionToken != nil, "\(first.json)")
            let login = try await FederationFixture.login(client, code: provider.code(subject: "user-1", email: "ada@idp.example"))
            #expect(login.status == .ok && login.login?.sessionToken != nil, "\(login.json)")
            #expect(login.login?.customerUri == registered.decoded(RegisterCustomerResponse.self)?.customerUri)
            #expect(login.login?.additionalAttributes?.additionalProperties["lastPasswordUpdate"] == nil, "an SSO wallet has no password")

            let otherDevice = try await FederationFixture.login(client, code: provider.code(subject: "user-1"), device: "device-2")
            #expect(otherDevice.login?.code == 412, "an unlinked device gets the MFA prompt")
            let stranger = try await FederationFixture.login(client, code: provider.code(subject: "user-2"))
            #expect(stranger.errorCode == 401 && stranger.failure?.id == "no_linked_wallet")
            let again = try await FederationFixture.metadata(client, code: provider.code(subject: "user-1"))
            #expect(again.decoded(RetrieveCustomerProfileMetaDataResponse.self)?.isCustomerSecurityProfileExists == true)
        }
    }

    @Test func forgedIDTokensAreRefused() async throws {
        try await withFederation { provider, _, client in
            for (code, what) in [(provider.code(subject: "u", forged: true), "signature"),
                                 (provider.code(subject: "u", audience: "another-client"), "audience"),
                                 (provider.code(subject: "u", expiresIn: -3600), "expiry")] {
                let answer = try await FederationFixture.metadata(client, code: code)
                #expect(answer.status == .unauthorized, "\(what)")
                #expect(answer.failure?.id == "invalid_id_token", "\(what): \(answer.json)")
            }
            #expect(try await FederationFixture.metadata(client, code: "made-up").errorCode == 401)
            #expect(try await FederationFixture.metadata(client, code: provider.code(subject: "u"), provider: "nobody").errorCode == 401)
            #expect(try await FederationFixture.metadata(client, code: "").status == .badRequest)
        }
    }

    @Test func registerCustomerDocumentedCodes() async throws {
        try await withFederation { provider, app, client in
            _ = try await AuthFixture.register(client, email: "taken@example.com")
            try await AuthFixture.verifyEmail(app, client, email: "taken@example.com")
            let nonce = try #require(try await FederationFixture.metadata(client, code: provider.code(subject: "u1")).decoded(RetrieveCustomerProfileMetaDataResponse.self)?.nonce)
            let missing = try await FederationFixture.register(client, nonce: nonce) { $0["email"] = nil }
            #expect(missing.status == .badRequest && missing.errorField == "email")
            let noAnswers = try await FederationFixture.register(client, nonce: nonce) { $0["mfaSecurityProfiles"] = nil }
            #expect(noAnswers.errorCode == 410 && noAnswers.status == .unprocessableContent)
            let tooFew = try await FederationFixture.register(client, nonce: nonce) { $0["mfaSecurityProfiles"] = [FederationFixture.answers[0]] }
            #expect(tooFew.errorCode == 400)
            let pin = try await FederationFixture.register(client, nonce: nonce) { $0["passcode"] = "123456" }
            #expect(pin.errorCode == 408 && pin.status == .unprocessableContent)
            let taken = try await FederationFixture.register(client, nonce: nonce, email: "TAKEN@example.com")
            #expect(taken.errorCode == 416 && taken.status == .conflict)
            #expect(try await FederationFixture.register(client, nonce: nonce).status == .created, "refusals leave the nonce usable")
        }
    }

    @Test func aProviderThatIsDownOrSlowGivesAPromptClearError() async throws {
        try await withFederation(timeout: 1) { provider, _, client in
            provider.mode = .down
            let down = try await FederationFixture.metadata(client, code: provider.code(subject: "u"))
            #expect(down.status == .badGateway && down.errorCode == 500 && down.failure?.id == "provider_unavailable")
            provider.mode = .slow
            let started = Date()
            let slow = try await FederationFixture.login(client, code: provider.code(subject: "u"))
            #expect(slow.status == .gatewayTimeout && slow.errorCode == 500 && slow.failure?.id == "provider_timeout")
            #expect(Date().timeIntervalSince(started) < 2.5, "the timeout answers, not the provider")
        }
        try await withServer(configure: {
            $0.issuer.identityProviders = [IdentityProviderSettings(id: "example", issuer: "http://127.0.0.1:1", clientId: "c",
                                                                    clientSecret: "s", redirectUri: "app:/cb", timeoutSeconds: 1)]
        }) { _, client in
            let unreachable = try await FederationFixture.metadata(client, code: "any")
            #expect(unreachable.status == .badGateway && unreachable.errorCode == 500)
        }
    }

    @Test func rotatedKeysAreFetchedOnAnUnknownKeyID() async throws {
        let clock = TestClock(start: Date())
        try await withFederation(clock: clock) { provider, _, client in
            try await FederationFixture.enrolled(provider, client)
            provider.rotateKeys()
            clock.advance(11)
            let login = try await FederationFixture.login(client, code: provider.code(subject: "user-1"))
            #expect(login.login?.sessionToken != nil, "\(login.json)")
        }
    }

    @Test func userinfoCompletesAnIDTokenWithoutEmail() async throws {
        try await withFederation { provider, _, client in
            let code = provider.code(subject: "u", email: "info@idp.example", emailInToken: false)
            let answer = try await FederationFixture.metadata(client, code: code)
            #expect(answer.decoded(RetrieveCustomerProfileMetaDataResponse.self)?.customerInfoJson.contains("info@idp.example") == true, "\(answer.json)")
        }
    }

    @Test func federatedLoginDocumentedCodes() async throws {
        try await withFederation { provider, app, client in
            let metadata = try await FederationFixture.metadata(client, code: provider.code(subject: "user-1", email: "ada@idp.example"))
            let registered = try await FederationFixture.register(client, nonce: try #require(metadata.decoded(RetrieveCustomerProfileMetaDataResponse.self)?.nonce))
            let early = try await FederationFixture.login(client, code: provider.code(subject: "user-1"))
            #expect(early.errorCode == 511, "the app instance is verified by the registration nonce first")
            _ = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": try #require(registered.decoded(RegisterCustomerResponse.self)?.nonce)])
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@idp.example"))
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .deactivated, now: Date())
            #expect(try await FederationFixture.login(client, code: provider.code(subject: "user-1")).errorCode == 423)

            let other = try await FederationFixture.metadata(client, code: provider.code(subject: "user-2", email: "two@idp.example"))
            let second = try await FederationFixture.register(client, nonce: try #require(other.decoded(RetrieveCustomerProfileMetaDataResponse.self)?.nonce),
                                                              email: "not-the-providers@example.com")
            #expect(second.status == .created)
            #expect(try await app.store.outboxMessages().contains { $0.recipient == "not-the-providers@example.com" },
                    "an address the provider did not verify gets a verification link")
            let unverified = try await FederationFixture.login(client, code: provider.code(subject: "user-2"), device: "device-1")
            #expect(unverified.errorCode == 418)
            #expect(try await FederationFixture.login(client, code: provider.code(subject: "user-1")).errorCode == 423)
            #expect(try await FederationFixture.login(client, code: provider.code(subject: "user-1"), device: "").status == .badRequest)
        }
    }

    @Test func federatedLoginFollowsTheWalletsState() async throws {
        try await withFederation(configure: { $0.issuer.passwordExpiryDays = 1 }) { provider, app, client in
            try await FederationFixture.enrolled(provider, client)
            let login = try await FederationFixture.login(client, code: provider.code(subject: "user-1"))
            #expect(login.login?.additionalAttributes?.additionalProperties["passwordExpiresAt"] == nil,
                    "an SSO wallet has no password to expire")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@idp.example"))
            try await app.store.setUserStatus(userID: user.id, status: .deactivated, now: Date())
            #expect(try await FederationFixture.login(client, code: provider.code(subject: "user-1")).errorCode == 421)
            try await app.store.setUserStatus(userID: user.id, status: .active, now: Date())
            try await app.store.setDeviceStatus(userID: user.id, deviceID: "device-1", status: .suspended, now: Date())
            #expect(try await FederationFixture.login(client, code: provider.code(subject: "user-1")).errorCode == 503)
        }
    }
}
