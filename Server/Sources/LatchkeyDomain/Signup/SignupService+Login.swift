import Foundation
import LatchkeyCore

extension SignupService {
    /// Completes a login flow (`POST /a/self-service/login?flow=ID`, method password) with a phone
    /// number or an email address as identifier, under the same lockout and rate limits as every
    /// login. A wallet with MFA answers must log in from a linked device (the app's MFA prompt links
    /// new ones); a wrong identifier or password re-renders the flow, which stays usable.
    public func login(flowID: String, method: String, identifier: String, password: String,
                      caller: Caller) async throws -> FlowSession {
        let flow = try await liveFlow(flowID, .login)
        guard method == "password" else { throw DomainError.invalidField("method", "Only the password method is supported.") }
        let id = identifier.trimmingCharacters(in: .whitespaces)
        var missing: [(field: String?, message: FlowMessage)] = []
        if id.isEmpty { missing.append(("identifier", FlowMessage.missing("identifier"))) }
        if password.isEmpty { missing.append(("password", FlowMessage.missing("password"))) }
        if !missing.isEmpty { throw FlowFormError(flow: flow, messages: missing) }

        let identifier: LoginIdentifier = id.hasPrefix("+") ? .phone(id) : .email(id)
        let result: PasswordLoginResult
        do {
            result = try await logins.passwordLogin(
                identifier, password: password, caller: caller, unlinked: .linkUnlessQuestions,
                beforeSession: { guard try await store.useFlow(id: flow.id, kind: .login, now: now()) else { throw DomainError.flowUsed } })
        } catch let error as DomainError where Self.formMessage(for: error) != nil {
            throw FlowFormError(flow: flow, messages: [(nil, Self.formMessage(for: error)!)])
        } catch PasswordLoginRefusal.deviceNotLinked {
            throw FlowFormError(flow: flow, messages: [(nil, FlowMessage.generic(
                "This device is not linked to the wallet; log in from the app to answer a security question."))])
        }
        guard case .session(let opened) = result else { throw DomainError.wrongCredentials }
        return FlowSession(token: opened.token, session: opened.session, user: opened.user)
    }

    /// The refusals Kratos shows on the form rather than as an error: wrong credentials (4000006),
    /// an unverified email (4000010), an unverified app instance or an expired password.
    package static func formMessage(for error: DomainError) -> FlowMessage? {
        switch error.kind {
        case .wrongCredentials: FlowMessage.wrongCredentials
        case .emailNotVerified: FlowMessage.emailNotVerified
        case .appInstanceNotVerified, .passwordExpired: FlowMessage.generic(error.message)
        default: nil
        }
    }

    /// Revokes a session token (`DELETE /a/self-service/logout/api`): 204 for a live or already
    /// revoked token, 403 for an unknown one, as Kratos answers. A session bound to a device key is
    /// ended only by a request that proved that key (`provenKey`): a copied token, useless
    /// otherwise, cannot force a logout.
    ///
    /// - Throws: 400 naming `session_token` when it is empty; 403 `unknown_session_token`; 401
    ///   `invalid_token` (with the DPoP challenge) for a bound session without a proof by its key.
    public func logout(token: String, provenKey: String?) async throws {
        guard !token.isEmpty else { throw DomainError.invalidField("session_token", "The session token is required.") }
        switch try await store.revokeSession(digest: SecureRandom.digest(token), provenKey: provenKey, now: now()) {
        case .revoked, .alreadyRevoked: return
        case .unknown: throw DomainError.unknownSessionToken
        case .boundToAnotherKey:
            throw DomainError(.boundTokenWithoutProof, message: "This session is bound to a device key: log out with a DPoP proof by that key.",
                              field: "session_token")
        }
    }
}
