import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Keeps the session and device tokens (in the app's `CredentialStorage`, never handed to the
/// app) and publishes authentication-state changes to streams and the delegate.
actor SessionVault {
    static let sessionKey = "latchkey.session"
    static let customerKey = "latchkey.customerUri"
    static let deviceTokenKey = "latchkey.deviceToken"
    static let deviceTokenExpiryKey = "latchkey.deviceTokenExpiresAt"

    private let storage: any CredentialStorage
    private var loaded = false
    private var session: String?
    private(set) var state: AuthenticationState = .loggedOut
    private var continuations: [UUID: AsyncStream<AuthenticationState>.Continuation] = [:]
    /// Feeds the delegate's main-actor task, which delivers the states in order.
    private var delegateFeed: AsyncStream<AuthenticationState>.Continuation?

    init(storage: any CredentialStorage) { self.storage = storage }

    /// Reads the stored session once. A read that fails (a Keychain locked before the first unlock)
    /// is not remembered as "no session": the next call reads again.
    func load() async {
        guard !loaded else { return }
        do {
            session = try await storage.data(for: Self.sessionKey).map { String(decoding: $0, as: UTF8.self) }
            if session != nil, let customer = try await storage.data(for: Self.customerKey) {
                state = .authenticated(customerUri: String(decoding: customer, as: UTF8.self))
            }
            loaded = true
        } catch {
            session = nil
        }
    }

    func sessionToken() async -> String? {
        await load()
        return session
    }

    func signIn(token: String, customerUri: String) async {
        await load()
        session = token
        try? await storage.set(Data(token.utf8), for: Self.sessionKey)
        try? await storage.set(Data(customerUri.utf8), for: Self.customerKey)
        publish(.authenticated(customerUri: customerUri))
    }

    /// A sign-up whose user exists but whose device key is not registered yet.
    private(set) var pendingSignup: (flowID: String, customerUri: String)?

    /// Holds the new session of a sign-up for the calls that finish it, without storing or announcing it.
    func stagePendingSignup(flowID: String, token: String, customerUri: String) async {
        await load()
        session = token
        pendingSignup = (flowID, customerUri)
    }

    /// Stores and announces the session of a finished sign-up.
    func completePendingSignup() async {
        guard let pending = pendingSignup, let token = session else { return }
        pendingSignup = nil
        await signIn(token: token, customerUri: pending.customerUri)
    }

    /// Drops the session; `ifToken` limits it to that session (a 401 for an older one is ignored).
    func signOut(ifToken: String? = nil) async {
        await load()
        if let ifToken, ifToken != session { return }
        session = nil
        try? await storage.set(nil, for: Self.sessionKey)
        try? await storage.set(nil, for: Self.customerKey)
        publish(.loggedOut)
    }

    func deviceToken() async -> String? {
        try? await storage.data(for: Self.deviceTokenKey).map { String(decoding: $0, as: UTF8.self) }
    }

    /// When the stored device token expires, as the server said.
    func deviceTokenExpiry() async -> Date? {
        guard let data = try? await storage.data(for: Self.deviceTokenExpiryKey),
              let seconds = Double(String(decoding: data, as: UTF8.self)) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    func setDeviceToken(_ token: String?, expiresAt: Date? = nil) async {
        try? await storage.set(token.map { Data($0.utf8) }, for: Self.deviceTokenKey)
        try? await storage.set(expiresAt.map { Data(String($0.timeIntervalSince1970).utf8) }, for: Self.deviceTokenExpiryKey)
    }

    /// Replaces the delegate (held weakly): one main-actor task delivers its states in order.
    func setDelegate(_ delegate: (any AuthenticationDelegate)?) {
        delegateFeed?.finish()
        delegateFeed = nil
        guard let delegate else { return }
        let (states, feed) = AsyncStream<AuthenticationState>.makeStream()
        delegateFeed = feed
        Task { @MainActor [weak delegate] in
            for await state in states {
                guard let delegate else { return }
                delegate.authenticationStateDidChange(state)
            }
        }
    }

    func stream() async -> AsyncStream<AuthenticationState> {
        await load()
        let (stream, continuation) = AsyncStream<AuthenticationState>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        continuations[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { [weak self] _ in Task { await self?.remove(id) } }
        return stream
    }

    private func remove(_ id: UUID) { continuations[id] = nil }

    private func publish(_ new: AuthenticationState) {
        guard new != state else { return }
        state = new
        for continuation in continuations.values { continuation.yield(new) }
        delegateFeed?.yield(new)
    }
}

/// Sends the session as `Authorization: Bearer …`; a 401 answer to a call that carried it means
/// the session is gone, so the state moves to logged out.
struct SessionMiddleware: ClientMiddleware {
    let vault: SessionVault
    /// Calls that work without a session; they never carry one, so their 401s are about credentials.
    static let publicOperations: Set<String> = [
        "retrieveMfaQuestionsWithMetadata", "retrievePasswordConfigurations", "retrievePasscodeConfigurations",
        "retrieveProfileMetadata", "registerNewUser", "loginByUsernamePassword", "loginByPIN", "loginByNonce",
        "registerWithMFA", "loginWithDeviceAuthenticationToken", "expireDeviceAuthenticationToken",
        "createNativeRegistrationFlow", "sendPhoneVerificationCode", "verifyPhoneNumber", "updateRegistrationFlow",
        "createNativeLoginFlow", "updateLoginFlow", "resetForgottenPassword", "resetForgottenPasscode",
        "retrieveCustomerProfileMetaData", "registerCustomer", "loginByFederatedIdentity",
    ]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        var request = request
        let token = Self.publicOperations.contains(operationID) ? nil : await vault.sessionToken()
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        let (response, responseBody) = try await next(request, body, baseURL)
        if response.status == .unauthorized, let token { await vault.signOut(ifToken: token) }
        return (response, responseBody)
    }
}
