import Foundation
import LatchkeyCore

extension SignupService {
    /// Completes a login flow (`POST /a/self-service/login?flow=ID`, method password) with a phone
    /// number or an email address as identifier, under the same lockout and rate limits as every
    /// login. A wallet with MFA answers must log in from a linked device (the app's MFA prompt links
    /// new ones); a wrong identifier or password re-renders the flow, which stays usable.
    public func login(flowID: String, method: String, identifier: String, password: String,
                      deviceID: String?) async throws -> FlowSession {
        let flow = try await liveFlow(flowID, .login)
        guard method == "password" else { throw DomainError.invalidField("method", "Only the password method is supported.") }
        let id = identifier.trimmingCharacters(in: .whitespaces)
        var missing: [(field: String?, message: FlowMessage)] = []
        if id.isEmpty { missing.append(("identifier", FlowMessage.missing("identifier"))) }
        if password.isEmpty { missing.append(("password", FlowMessage.missing("password"))) }
        if !missing.isEmpty { throw FlowFormError(flow: flow, messages: missing) }

        let byPhone = id.hasPrefix("+")
        let user = byPhone ? try await store.user(issuer: issuer.id, phoneNormalized: id)
            : try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(id))
        guard let user else {
            try await hasher.burn(password)
            throw FlowFormError(flow: flow, messages: [(nil, FlowMessage.wrongCredentials)])
        }
        do {
            try await verifier.check(password, against: user.passwordHash, user: user, deviceID: deviceID,
                                                     credential: .password)
        } catch let error as DomainError where error == .wrongCredentials {
            throw FlowFormError(flow: flow, messages: [(nil, FlowMessage.wrongCredentials)])
        }
        do { try verifier.requireVerified(user, byEmail: !byPhone) } catch let error as DomainError {
            let message = error == .emailNotVerified ? FlowMessage.emailNotVerified : FlowMessage.generic(error.message)
            throw FlowFormError(flow: flow, messages: [(nil, message)])
        }
        let linked = try await verifier.linkedDevice(user: user, deviceID: deviceID)
        if linked == nil, !(try await store.mfaAnswers(userID: user.id)).isEmpty {
            throw FlowFormError(flow: flow, messages: [(nil, FlowMessage.generic(
                "This device is not linked to the wallet; log in from the app to answer a security question."))])
        }
        guard try await store.useFlow(id: flow.id, kind: .login, now: now()) else { throw DomainError.flowUsed }
        if linked == nil, let deviceID {
            try await store.linkDevice(userID: user.id, deviceID: deviceID, deviceType: nil, now: now())
        }
        let opened = try await sessions.open(user, deviceID: deviceID)
        return FlowSession(token: opened.token, session: opened.session, user: user)
    }

    /// Revokes a session token (`DELETE /a/self-service/logout/api`): 204 for a live or already
    /// revoked token, 403 for an unknown one, as Kratos answers.
    public func logout(token: String) async throws {
        guard !token.isEmpty else { throw DomainError.invalidField("session_token", "The session token is required.") }
        let digest = SecureRandom.digest(token)
        if try await store.revokeSession(digest: digest, now: now()) { return }
        if try await store.sessionExists(digest: digest) { return }
        throw DomainError.unknownSessionToken
    }
}
