import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// SSO routes: thin calls into `FederationService`.
extension APIHandler {
    package func retrieveCustomerProfileMetaData(_ input: Operations.RetrieveCustomerProfileMetaData.Input) async throws
        -> Operations.RetrieveCustomerProfileMetaData.Output {
        let body = input.body.json
        let answer = try await federation.retrieveProfileMetadata(
            code: body.authorizationCode, provider: body.identityProvider, codeVerifier: body.codeVerifier,
            requested: (body.additionalInformation ?? []).map(\.additionalDataKey), caller: caller)
        return .ok(.init(body: .json(answer)))
    }

    package func registerCustomer(_ input: Operations.RegisterCustomer.Input) async throws -> Operations.RegisterCustomer.Output {
        let body = input.body.json
        var answers: [String: String]?
        if let profiles = body.mfaSecurityProfiles {
            answers = [:]
            for profile in profiles {
                if answers?[profile.question] != nil {
                    throw DomainError.invalidField("mfaSecurityProfiles", "Each question may be answered once.")
                }
                answers?[profile.question] = profile.answer
            }
        }
        let additional = body.additionalCustomerInformation.map {
            Dictionary($0.map { ($0.additionalCustomerInformationKey, $0.additionalCustomerInformationValue) }) { _, last in last }
        }
        var profile = UserProfile(firstName: body.firstName, lastName: body.lastName, email: body.email, passcode: body.passcode,
                                  mfaAnswers: answers, additionalCustomerInformation: additional,
                                  addressInformation: body.address)
        profile.phone = body.phone
        profile.externalId = body.externalId
        let result = try await federation.registerCustomer(CustomerRegistration(nonce: body.nonce, profile: profile),
                                                           caller: caller)
        return .created(.init(body: .json(RegisterCustomerResponse(
            nonce: result.nonce, customerUri: result.customerUri,
            additionalCustomerInformation: result.additionalCustomerInformation.sorted { $0.key < $1.key }
                .map { AdditionalCustomerInformation($0.key, $0.value) }))))
    }

    package func loginByFederatedIdentity(_ input: Operations.LoginByFederatedIdentity.Input) async throws
        -> Operations.LoginByFederatedIdentity.Output {
        let body = input.body.json
        let outcome = try await federation.login(code: body.authorizationCode, provider: body.identityProvider,
                                                 codeVerifier: body.codeVerifier, caller: caller)
        return .ok(.init(body: .json(wire(outcome))))
    }
}
