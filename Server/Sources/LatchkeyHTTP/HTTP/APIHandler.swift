import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The generated server protocol, implemented by thin calls into the domain services.
/// The read-only answers depend only on the issuer's configuration, so they are built once.
/// A class: the generated server copies its handler into every request's closures, and a copy of a
/// reference is one retain where a copy of the services' values would be dozens.
package final class APIHandler: APIProtocol, Sendable {
    package let enrollment: EnrollmentService
    package let authentication: AuthenticationService
    package let profile: ProfileService
    package let resetPortal: ResetPortalService
    package let signup: SignupService
    package let federation: FederationService
    package let statistics: LoginStatisticsService
    package let passkeys: PasskeyService
    package let oneTimeFactors: OneTimeFactorService
    private let mfaQuestions: Components.Schemas.RetrieveMFAQuestionsWithMetadataResponse
    private let passwordConfiguration: Components.Schemas.UserPasswordConfigurations
    private let passcodeConfiguration: Components.Schemas.UserPasscodeConfigurations
    private let profileMetadata: Components.Schemas.ProfileMetadataResponse
    /// The seal keys and the issuer's encryption settings (`retrieveEncryptionSettings`).
    let sealing: CredentialUnsealer
    /// The texts of the answers that carry a sentence (besides errors), in the customer's language.
    let catalog: TextCatalog

    package init(enrollment: EnrollmentService, authentication: AuthenticationService, profile: ProfileService,
         resetPortal: ResetPortalService, signup: SignupService, federation: FederationService, statistics: LoginStatisticsService,
         passkeys: PasskeyService, oneTimeFactors: OneTimeFactorService, sealing: CredentialUnsealer, catalog: TextCatalog) throws {
        self.passkeys = passkeys
        self.oneTimeFactors = oneTimeFactors
        self.catalog = catalog
        self.statistics = statistics
        self.sealing = sealing
        self.signup = signup
        self.federation = federation
        self.enrollment = enrollment
        self.authentication = authentication
        self.profile = profile
        self.resetPortal = resetPortal
        mfaQuestions = enrollment.mfaQuestions
        passwordConfiguration = enrollment.passwordConfigurations
        passcodeConfiguration = enrollment.passcodeConfigurations
        profileMetadata = enrollment.profileMetadata
    }

    package func retrieveMfaQuestionsWithMetadata(_ input: Operations.RetrieveMfaQuestionsWithMetadata.Input) async throws
        -> Operations.RetrieveMfaQuestionsWithMetadata.Output {
        .ok(.init(body: .json(mfaQuestions)))
    }

    package func retrievePasswordConfigurations(_ input: Operations.RetrievePasswordConfigurations.Input) async throws
        -> Operations.RetrievePasswordConfigurations.Output {
        .ok(.init(body: .json(passwordConfiguration)))
    }

    package func retrievePasscodeConfigurations(_ input: Operations.RetrievePasscodeConfigurations.Input) async throws
        -> Operations.RetrievePasscodeConfigurations.Output {
        .ok(.init(body: .json(passcodeConfiguration)))
    }

    package func retrieveProfileMetadata(_ input: Operations.RetrieveProfileMetadata.Input) async throws
        -> Operations.RetrieveProfileMetadata.Output {
        .ok(.init(body: .json(profileMetadata)))
    }

    package func registerNewUser(_ input: Operations.RegisterNewUser.Input) async throws -> Operations.RegisterNewUser.Output {
        let request = input.body.json
        let response = try await enrollment.register(request.userProfile, caller: caller)
        return .created(.init(body: .json(response)))
    }
}
