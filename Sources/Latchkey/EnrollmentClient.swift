import Foundation
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

/// The user enrollment module (`PDUserEnrollmentCoordinator`): the calls that need no login.
public struct EnrollmentClient: Sendable {
    let context: LatchkeyContext
    let api: Client

    /// `retrieveMfaQuestionsWithMetadata`: the issuer's MFA question pool and requirement.
    public func retrieveMfaQuestionsWithMetadata() async throws(LatchkeyError) -> MFAQuestions {
        try await call(.fetchMfaQuestionsWithMetadata) { try await api.retrieveMfaQuestionsWithMetadata().ok.body.json }
    }

    /// `retrievePasswordConfigurations`: the issuer's password rules.
    public func retrievePasswordConfigurations() async throws(LatchkeyError) -> PasswordConfigurations {
        try await call(.retrievePasswordConfigs) { try await api.retrievePasswordConfigurations().ok.body.json }
    }

    /// `retrievePasscodeConfigurations`: the issuer's passcode rules.
    public func retrievePasscodeConfigurations() async throws(LatchkeyError) -> PasscodeConfigurations {
        try await call(.retrievePasscodeConfigs) { try await api.retrievePasscodeConfigurations().ok.body.json }
    }

    /// The field metadata of the profile, contact and address objects, to build forms from.
    public func retrieveProfileMetadata() async throws(LatchkeyError) -> ProfileMetadata {
        try await call(.retrieveProfileMetadata) { try await api.retrieveProfileMetadata().ok.body.json }
    }

    /// The issuer's rules, fetched from the server, that `registerNewUser` checks before sending.
    public func retrieveEnrollmentRules() async throws(LatchkeyError) -> EnrollmentRules {
        EnrollmentRules(password: try await retrievePasswordConfigurations(), passcode: try await retrievePasscodeConfigurations(),
                        mfa: try await retrieveMfaQuestionsWithMetadata(), metadata: try await retrieveProfileMetadata())
    }

    /// `registerNewUser`: checks the profile with the issuer's rules (the server's own checker),
    /// then registers it. The response's nonce logs this device in once (`loginByNonce`).
    /// - Parameters:
    ///   - profile: the user's profile, credentials and MFA answers.
    ///   - rules: the rules to check with; fetched from the server when nil.
    public func registerNewUser(_ profile: UserProfile, rules: EnrollmentRules? = nil) async throws(LatchkeyError)
        -> RegisterUserResponse {
        let domain = ErrorDomain.registerNewUser
        let rules = if let rules { rules } else { try await retrieveEnrollmentRules() }
        do { try rules.validateRegistration(profile) } catch { throw refusal(error, domain) }
        return try await call(domain) {
            try await api.registerNewUser(body: .json(.init(userProfile: profile))).created.body.json
        }
    }

    func call<Result>(_ domain: ErrorDomain, _ body: () async throws -> Result) async throws(LatchkeyError) -> Result {
        try await context.call(domain, body)
    }
}

extension LatchkeyContext {
    /// Runs one call: checks the configuration and turns every failure into a `LatchkeyError` of
    /// `domain`. The generated types are the domain types where the schemas match (the generator's
    /// type overrides); other answers are converted by the caller with an explicit `init(_:)`.
    func call<Result>(_ domain: ErrorDomain, _ body: () async throws -> Result) async throws(LatchkeyError) -> Result {
        try validate()
        do {
            return try await body()
        } catch {
            throw LatchkeyError.from(error, domain: domain, context: self)
        }
    }

    /// Runs one call whose answer carries nothing.
    func call(_ domain: ErrorDomain, _ body: () async throws -> Void) async throws(LatchkeyError) {
        try validate()
        do {
            try await body()
        } catch {
            throw LatchkeyError.from(error, domain: domain, context: self)
        }
    }
}

extension LatchkeyError {
    /// The SDK error for any failure of a call in `domain`.
    static func from(_ error: any Error, domain: ErrorDomain, context: LatchkeyContext) -> LatchkeyError {
        var underlying = error
        if let clientError = error as? ClientError { underlying = clientError.underlyingError }
        if let refusal = underlying as? ServerRefusal {
            let code = StatusCode(rawValue: refusal.body.code)
            let id = ErrorID(rawValue: refusal.body.id)
            let kind: LatchkeyError.Kind = switch id {
            case .sessionRefreshRequired: .reauthenticationRequired
            case .overloaded: .overloaded
            default: .server
            }
            return LatchkeyError(kind: kind, code: code, domain: domain, id: id,
                                 message: context.message(for: domain, code: code) ?? refusal.body.message,
                                 detail: refusal.body.message, field: refusal.body.field, retryAfter: refusal.retryAfter)
        }
        if var known = underlying as? LatchkeyError {
            // Raised below the call (the device key, the storage): reported in the call's domain.
            known.domain = domain
            if let message = context.message(for: domain, code: known.code) { known.message = message }
            return known
        }
        let detail = "The server could not be reached or answered unexpectedly: \(underlying)"
        return LatchkeyError(kind: .transport, code: .serverError, domain: domain, id: .transport,
                             message: context.message(for: domain, code: .serverError) ?? detail, detail: detail)
    }
}
