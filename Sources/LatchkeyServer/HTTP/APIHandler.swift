import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The generated server protocol, implemented by thin calls into the domain services.
/// The read-only answers depend only on the issuer's configuration, so they are built once.
struct APIHandler: APIProtocol {
    let enrollment: EnrollmentService
    let authentication: AuthenticationService
    let profile: ProfileService
    let signup: SignupService
    let federation: FederationService
    private let mfaQuestions: Components.Schemas.RetrieveMFAQuestionsWithMetadataResponse
    private let passwordConfiguration: Components.Schemas.UserPasswordConfigurations
    private let passcodeConfiguration: Components.Schemas.UserPasscodeConfigurations
    private let profileMetadata: Components.Schemas.ProfileMetadataResponse

    init(enrollment: EnrollmentService, authentication: AuthenticationService, profile: ProfileService,
         signup: SignupService, federation: FederationService) throws {
        self.signup = signup
        self.federation = federation
        self.enrollment = enrollment
        self.authentication = authentication
        self.profile = profile
        mfaQuestions = enrollment.mfaQuestions
        passwordConfiguration = enrollment.passwordConfigurations
        passcodeConfiguration = enrollment.passcodeConfigurations
        profileMetadata = enrollment.profileMetadata
    }

    func retrieveMfaQuestionsWithMetadata(_ input: Operations.RetrieveMfaQuestionsWithMetadata.Input) async throws
        -> Operations.RetrieveMfaQuestionsWithMetadata.Output {
        .ok(.init(body: .json(mfaQuestions)))
    }

    func retrievePasswordConfigurations(_ input: Operations.RetrievePasswordConfigurations.Input) async throws
        -> Operations.RetrievePasswordConfigurations.Output {
        .ok(.init(body: .json(passwordConfiguration)))
    }

    func retrievePasscodeConfigurations(_ input: Operations.RetrievePasscodeConfigurations.Input) async throws
        -> Operations.RetrievePasscodeConfigurations.Output {
        .ok(.init(body: .json(passcodeConfiguration)))
    }

    func retrieveProfileMetadata(_ input: Operations.RetrieveProfileMetadata.Input) async throws
        -> Operations.RetrieveProfileMetadata.Output {
        .ok(.init(body: .json(profileMetadata)))
    }

    func registerNewUser(_ input: Operations.RegisterNewUser.Input) async throws -> Operations.RegisterNewUser.Output {
        guard case .json(let request) = input.body else { throw DomainError.invalidField("body", "Send JSON.") }
        let response = try await enrollment.register(request.userProfile, caller: caller)
        return .created(.init(body: .json(response)))
    }
}
