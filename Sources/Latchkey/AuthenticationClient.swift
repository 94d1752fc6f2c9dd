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
    /// Counts and logs each login (`collectStatistics`).
    let observer: LoginObserver

    /// The current state: `.unknown` until the stored session has been read (and while it cannot
    /// be: a Keychain before the phone's first unlock), then every change as it happens.
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

    /// Sets the delegate told of every state change (held weakly), starting with the current state.
    public func setDelegate(_ delegate: (any AuthenticationDelegate)?) async {
        await vault.setDelegate(delegate)
    }

    /// `loginByUsernamePassword`: the username is the registered email.
    public func loginByUsernamePassword(username: String, password: String) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithUsernamePassword, method: .password) {
            try await api.loginByUsernamePassword(body: .json(.init(username: username, password: password))).ok.body.json
        }
    }

    /// `loginByPIN`: logs in the user this device is linked to.
    public func loginByPIN(_ pin: String) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithPin, method: .pin) { try await api.loginByPIN(body: .json(.init(pin: pin))).ok.body.json }
    }

    /// `loginByNonce`: the nonce of `registerNewUser`, once, within the issuer's window.
    public func loginByNonce(_ nonce: String) async throws(LatchkeyError) -> LoginResult {
        try await login(.loginWithNonce, method: .nonce) { try await api.loginByNonce(body: .json(.init(nonce: nonce))).ok.body.json }
    }

    /// `registerWithMFA`: the answered question links this device and logs in.
    public func registerWithMFA(_ token: MFAToken) async throws(LatchkeyError) -> LoginResult {
        try await answerMFA(token, with: .answer(token.mfaSecretAnswer))
    }

    /// `logout`: signs out on this device at once, network or not, then revokes the session on the
    /// server. A revocation that cannot reach the server (offline, a server error) is kept and sent
    /// again at the next login or logout; the call does not fail for it. 403 when not logged in.
    /// - Throws: `LatchkeyError` `.notLoggedIn` (403) when there was no session; `.storage` when the
    ///   signed-out state could not be written (this launch is signed out; after a relaunch the
    ///   stored session is tried and the server refuses it).
    public func logout() async throws(LatchkeyError) {
        let token: String?
        do { token = try await vault.beginSignOut() } catch {
            await revoke(vault.pendingRevocation())
            throw LatchkeyError.storage(error, domain: .logout)
        }
        guard let token else {
            // No session here: the server answers the spec's 403.
            let api = self.api
            try await context.call(.logout) { _ = try await api.logout().noContent }
            return
        }
        await revoke(token)
    }

    /// Revokes a session signed out here; forgets it once the server has it gone (revoked now, or
    /// no longer known), keeps it for later when the server cannot be reached.
    func revoke(_ token: String?) async {
        guard let token else { return }
        let api = self.api
        do {
            try await context.call(.logout) { _ = try await api.logout().noContent }
            await vault.revoked(token)
        } catch {
            // Forgotten only when the server says the session is gone. A refused proof (a clock
            // off without a usable `Date`, a nonce refused twice) is a 401 too, and says nothing
            // of the session: it is kept and sent again, as for an unreachable server.
            if error.kind == .server, SessionMiddleware.sessionEnded.contains(error.id) || error.id == .invalidCredentials {
                await vault.revoked(token)
            }
        }
    }

    /// The current session as the server sees it.
    public func currentSession() async throws(LatchkeyError) -> SessionInfo {
        try await context.call(.session) { SessionInfo(try await api.currentSession().ok.body.json) }
    }

    /// A login by `method`, counted and logged.
    func login(_ domain: ErrorDomain, method: LoginStatisticsMethod,
               _ body: () async throws -> Components.Schemas.LoginResponse) async throws(LatchkeyError) -> LoginResult {
        let started = ContinuousClock.now
        do {
            let result = try await login(domain, body)
            let milliseconds = SDKLogger.milliseconds(since: started)
            switch result {
            case .authenticated: await observer.observe(method, .success, milliseconds: milliseconds)
            case .mfaRequired: await observer.observe(method, .mfaRequired, milliseconds: milliseconds)
            }
            return result
        } catch {
            await observer.observe(method, nil, error: error, milliseconds: SDKLogger.milliseconds(since: started))
            throw error
        }
    }

    /// A login: the session kept, or the MFA prompt; not counted (see the one with `method`).
    func login(_ domain: ErrorDomain, _ body: () async throws -> Components.Schemas.LoginResponse)
        async throws(LatchkeyError) -> LoginResult {
        await revoke(vault.pendingRevocation())
        let response: Components.Schemas.LoginResponse = try await context.call(domain, body)
        if let prompt = response.mfaToken {
            let passkeyOptions = try prompt.passkeyOptions.map { (options) throws(LatchkeyError) in
                try PasskeyAssertionOptions(options, defaultRelyingPartyID: context.serverURL.host, domain: domain)
            }
            return .mfaRequired(MFAToken(mfaSecretQuestion: prompt.mfaSecretQuestion ?? "", factors: prompt.factors.map(FactorKind.init),
                                         passkeyOptions: passkeyOptions, challengeToken: prompt.challengeToken, domain: domain))
        }
        guard let token = response.sessionToken, let customerUri = response.customerUri else {
            throw LatchkeyError(kind: .transport, code: .serverError, domain: domain, id: .unexpectedAnswer,
                                message: "The server answered without a session.", detail: "No sessionToken in the answer.")
        }
        // A session that could not be kept is not reported as a login: the next launch would not have it.
        do { try await vault.signIn(token: token, customerUri: customerUri) } catch {
            throw LatchkeyError.storage(error, domain: domain)
        }
        return .authenticated(additionalAttributes: response.additionalAttributes?.additionalProperties ?? [:])
    }
}
