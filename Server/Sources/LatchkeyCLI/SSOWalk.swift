import Foundation
import Latchkey
import LatchkeyCore

/// The SSO part of the demo: the app's sign-in at the provider happens in a browser, so the demo
/// asks for the authorization codes (it prints the authorization URL when it knows the client),
/// then retrieveCustomerProfileMetaData → registerCustomer → loginByNonce → loginByFederatedIdentity.
struct SSOWalk {
    let serverURL: URL
    let signature: String
    let provider: String
    /// The provider's authorization URL for this client, when the demo knows it.
    let authorizationURL: String?

    func run() async throws {
        let client = DemoJourney.client(serverURL: serverURL, signature: signature, device: "demo-sso")
        guard let code = askCode("to register") else { return print("  no code entered: SSO skipped") }
        let metadata = try await step("retrieveCustomerProfileMetaData (\(provider))") {
            try await client.enrollment.retrieveCustomerProfileMetaData(RetrieveCustomerProfileMetaDataRequest(
                authorizationCode: code, identityProvider: provider,
                additionalInformation: [CustomerProfileMetaDataAdditionalData(additionalDataKey: "email")]))
        }
        print("  claims: \(metadata.customerInfoJson)")
        let questions = try await client.enrollment.retrieveMfaQuestionsWithMetadata()
        let email = metadata.additionalInformation.first?.additionalDataValue.flatMap { EmailAddress.isValid($0) ? $0 : nil }
            ?? "sso.\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let registered = try await step("registerCustomer \(email)") {
            try await client.enrollment.registerCustomer(RegisterCustomerRequest(
                nonce: metadata.nonce, email: email, firstName: "Ada", lastName: "Lovelace", passcode: "314159",
                mfaSecurityProfiles: questions.mfaQuestions.prefix(questions.numberOfRequiredQuestions)
                    .map { MFASecurityProfile(question: $0, answer: "answer") }))
        }
        print("  customerUri \(registered.customerUri)")
        let first = try await step("loginByNonce") { try await client.authentication.loginByNonce(registered.nonce) }
        print("  \(first)")
        try await step("logout") { try await client.authentication.logout() }
        guard let again = askCode("to log in") else { return print("  no code entered: federated login skipped") }
        let login = try await step("loginByFederatedIdentity") {
            try await client.authentication.loginByFederatedIdentity(LoginByFederatedIdentityRequest(
                authorizationCode: again, identityProvider: provider))
        }
        print("  \(login)")
        try await step("logout") { try await client.authentication.logout() }
    }

    private func askCode(_ purpose: String) -> String? {
        if let authorizationURL { print("→ sign in at \(authorizationURL)") }
        print("→ paste the authorization code \(purpose) (empty to skip):", terminator: " ")
        guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
        return line
    }
}
