import Foundation
import HummingbirdTesting
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The SDK's SSO calls against a live server that trusts an in-process OpenID Connect provider.
@Suite struct FederationClientTests {
    static func answers(_ sdk: LatchkeyClient) async throws -> [MFASecurityProfile] {
        let questions = try await sdk.enrollment.retrieveMfaQuestionsWithMetadata()
        return questions.mfaQuestions.prefix(questions.numberOfRequiredQuestions).map { MFASecurityProfile(question: $0, answer: "a") }
    }

    @Test(arguments: [false, true]) func registerThenLoginByNonceAndByFederatedIdentity(sealed: Bool) async throws {
        let provider = FakeOIDCProvider()
        try await PatientLiveServer.run(provider.application()) { providerClient in
            let issuer = "http://127.0.0.1:\(providerClient.port ?? 0)"
            let messages = ["kUserErrorRegisterCustomerDomain.401": "This sign-in expired; start again."]
            try await withLiveServer(messages: messages, configure: {
                if sealed { sealEverything(&$0) }
                $0.issuer.identityProviders = [IdentityProviderSettings(
                    id: "example", issuer: issuer, clientId: FakeOIDCProvider.clientID, clientSecret: FakeOIDCProvider.clientSecret,
                    redirectUri: FakeOIDCProvider.redirectURI)]
            }) { sdk, _ in
                let enrollment = sdk.enrollment
                let metadata = try await enrollment.retrieveCustomerProfileMetaData(RetrieveCustomerProfileMetaDataRequest(
                    authorizationCode: provider.code(subject: "sso-1", email: "grace@idp.example"), identityProvider: "example",
                    additionalInformation: [CustomerProfileMetaDataAdditionalData(additionalDataKey: "family_name")]))
                #expect(metadata.additionalInformation.first?.additionalDataValue == "Lovelace")
                #expect(metadata.customerInfoJson.contains("sso-1"))
                #expect(!metadata.isCustomerSecurityProfileExists)

                let answers = try await Self.answers(sdk)
                let request = RegisterCustomerRequest(nonce: metadata.nonce, email: "grace@idp.example", firstName: "Grace",
                                                      lastName: "Hopper", passcode: "314159", mfaSecurityProfiles: answers,
                                                      additionalCustomerInformation: [AdditionalCustomerInformation("tier", "gold")])
                var weak = request
                weak.passcode = "123456"
                let pin = await failure { _ = try await enrollment.registerCustomer(weak) }
                #expect(pin?.code == 408 && pin?.kind == .validation && pin?.domain == .registerCustomer)
                var none = request
                none.mfaSecurityProfiles = []
                #expect(await failure { _ = try await enrollment.registerCustomer(none) }?.code == 410)

                let registered = try await enrollment.registerCustomer(request)
                #expect(registered.additionalCustomerInformation == [AdditionalCustomerInformation("tier", "gold")])
                let reused = await failure { _ = try await enrollment.registerCustomer(request) }
                #expect(reused?.code == .unauthorized && reused?.message == "This sign-in expired; start again.")

                guard case .authenticated = try await sdk.authentication.loginByNonce(registered.nonce) else {
                    Issue.record("the registration nonce logs in")
                    return
                }
                try await sdk.authentication.logout()
                let login = try await sdk.authentication.loginByFederatedIdentity(LoginByFederatedIdentityRequest(
                    authorizationCode: provider.code(subject: "sso-1"), identityProvider: "example"))
                guard case .authenticated = login else {
                    Issue.record("federated login from the registering device logs in, got \(login)")
                    return
                }
                #expect(await sdk.authentication.state == .authenticated(customerUri: registered.customerUri))
                let refused = await failure {
                    _ = try await sdk.authentication.loginByFederatedIdentity(LoginByFederatedIdentityRequest(
                        authorizationCode: "forged", identityProvider: "example"))
                }
                #expect(refused?.code == .unauthorized && refused?.domain == .loginWithFederatedIdentity)
            }
        }
    }
}
