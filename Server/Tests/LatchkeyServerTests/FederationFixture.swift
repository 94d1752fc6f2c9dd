import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// A test server whose issuer trusts a live `FakeOIDCProvider` as provider `example`.
func withFederation(engine: String = "sqlite", clock: TestClock? = nil, timeout: Int = 15,
                    configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                    _ body: @escaping @Sendable (FakeOIDCProvider, LatchkeyApplication, any TestClientProtocol) async throws -> Void)
    async throws {
    let providerNow: @Sendable () -> Date = if let clock { { clock.now } } else { Date.init }
    let provider = FakeOIDCProvider(now: providerNow)
    try await PatientLiveServer.run(provider.application()) { providerClient in
        let issuer = "http://127.0.0.1:\(providerClient.port ?? 0)"
        try await withServer(engine: engine, clock: clock, configure: {
            $0.issuer.identityProviders = [IdentityProviderSettings(
                id: "example", issuer: issuer, clientId: FakeOIDCProvider.clientID, clientSecret: FakeOIDCProvider.clientSecret,
                redirectUri: FakeOIDCProvider.redirectURI, timeoutSeconds: timeout)]
            configure(&$0)
        }) { app, client in try await body(provider, app, client) }
    }
}

enum FederationFixture {
    static let answers = [["question": "What was the name of your first pet?", "answer": "Rex"],
                          ["question": "In what city were you born?", "answer": "London"],
                          ["question": "What is your mother's maiden name?", "answer": "Byron"]]

    static func metadata(_ client: any TestClientProtocol, code: String, provider: String = "example", device: String = "device-1",
                         requested: [String] = []) async throws -> JSONAnswer {
        try await client.call(.post, "/v1/enrollment/customer-profile-metadata", headers: appHeaders(device: device),
                              body: ["authorizationCode": code, "identityProvider": provider,
                                     "additionalInformation": requested.map { ["additionalDataKey": $0] }])
    }

    static func register(_ client: any TestClientProtocol, nonce: String, email: String = "ada@idp.example",
                         change: (inout [String: Any]) -> Void = { _ in }) async throws -> JSONAnswer {
        var body: [String: Any] = ["nonce": nonce, "email": email, "firstName": "Ada", "lastName": "Lovelace",
                                   "passcode": "314159", "mfaSecurityProfiles": answers,
                                   "additionalCustomerInformation": [["additionalCustomerInformationKey": "opt_in_email",
                                                                      "additionalCustomerInformationValue": "false"]]]
        change(&body)
        return try await client.call(.post, "/v1/enrollment/customers", body: body)
    }

    static func login(_ client: any TestClientProtocol, code: String, device: String = "device-1") async throws -> JSONAnswer {
        try await client.call(.post, "/v1/auth/login/federated", headers: appHeaders(device: device),
                              body: ["authorizationCode": code, "identityProvider": "example"])
    }

    /// Metadata, registration and the nonce login: a linked, verified SSO wallet on `device-1`.
    static func enrolled(_ provider: FakeOIDCProvider, _ client: any TestClientProtocol, subject: String = "user-1") async throws {
        let metadata = try await metadata(client, code: provider.code(subject: subject, email: "ada@idp.example"))
        let registered = try await register(client, nonce: try #require(metadata.decoded(RetrieveCustomerProfileMetaDataResponse.self)?.nonce))
        #expect(registered.status == .created, "\(registered.json)")
        let login = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": try #require(registered.decoded(RegisterCustomerResponse.self)?.nonce)])
        #expect(login.login?.sessionToken != nil, "\(login.json)")
    }
}
