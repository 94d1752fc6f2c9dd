import Foundation
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

/// The authentication module (`PDAuthenticationCoordinator`). The session and the device token
/// stay inside the SDK; the app sees results, states and errors.
public struct AuthenticationClient: Sendable {
    let context: LatchkeyContext
    let api: Client
    let vault: SessionVault
    /// Holds the device key (to tell this device in the device list).
    let signer: DPoPSigner
    let now: @Sendable () -> Date

    /// The current state.
    public var state: AuthenticationState {
        get async {
            await vault.load()
            return await vault.state
        }
    }

    /// A stream of authentication states, starting with the current one.
    public func authenticationStateChanges() async -> AsyncStream<AuthenticationState> {
        await vault.stream()
    }

    /// Sets the delegate told of every state change (held weakly).
    public func setDelegate(_ delegate: (any AuthenticationDelegate)?) async {
        await vault.setDelegate(delegate)
    }

    /// `loginByUsernamePassword`: the username is the registered email.
    public func loginByUsernamePassword(username: String, password: String) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithUsernamePassword) {
            try await api.loginByUsernamePassword(body: .json(.init(username: username, password: password))).ok.body.json
        }
    }

    /// `loginByPIN`: logs in the user this device is linked to.
    public func loginByPIN(_ pin: String) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithPin) { try await api.loginByPIN(body: .json(.init(pin: pin))).ok.body.json }
    }

    /// `loginByNonce`: the nonce of `registerNewUser`, once, within the issuer's window.
    public func loginByNonce(_ nonce: String) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithNonce) { try await api.loginByNonce(body: .json(.init(nonce: nonce))).ok.body.json }
    }

    /// `registerWithMFA`: the answered prompt links this device and logs in.
    public func registerWithMFA(_ token: MFAToken) async throws(LatchkeyError) -> LoginResult {
        try await login(token.domain) {
            try await api.registerWithMFA(body: .json(.init(challengeToken: token.challengeToken,
                                                            mfaSecretAnswer: token.mfaSecretAnswer))).ok.body.json
        }
    }

    /// `logout`: ends the session; 403 when not logged in. The state is logged out afterwards.
    public func logout() async throws(LatchkeyError) {
        let api = self.api
        try await context.call(.logout) { _ = try await api.logout().noContent }
        await vault.signOut()
    }

    /// The current session as the server sees it.
    public func currentSession() async throws(LatchkeyError) -> SessionInfo {
        try await context.call(.session) { SessionInfo(try await api.currentSession().ok.body.json) }
    }

    func login(_ domain: ErrorDomain, _ body: () async throws -> Components.Schemas.LoginResponse)
        async throws(LatchkeyError) -> LoginResult {
        let response: Components.Schemas.LoginResponse = try await context.call(domain, body)
        if let prompt = response.mfaToken {
            return .mfaRequired(MFAToken(mfaSecretQuestion: prompt.mfaSecretQuestion, challengeToken: prompt.challengeToken,
                                         domain: domain))
        }
        guard let token = response.sessionToken, let customerUri = response.customerUri else {
            throw LatchkeyError(kind: .transport, code: .serverError, domain: domain, id: .unexpectedAnswer,
                                message: "The server answered without a session.", detail: "No sessionToken in the answer.")
        }
        await vault.signIn(token: token, customerUri: customerUri)
        return .authenticated(additionalAttributes: response.additionalAttributes?.additionalProperties ?? [:])
    }
}
