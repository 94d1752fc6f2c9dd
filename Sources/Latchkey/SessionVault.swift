import Foundation

/// Keeps the session and device tokens (in the app's `CredentialStorage`, never handed to the
/// app) and publishes authentication-state changes to streams and the delegate.
///
/// The stored session is read once, by one read at a time; a sign-in or sign-out that happens
/// while that read is in flight wins over what the read finds (each bumps `generation`, and a read
/// applies its result only if none happened since it started). A read that fails leaves the state
/// `.unknown` and is repeated at the next call, and at the next moment of the `ProtectedDataSignal`
/// the client follows (`follow(_:)`).
actor SessionVault {
    let storage: any CredentialStorage
    private let reinstall: ReinstallDetection
    private let logger: SDKLogger
    private var loaded = false
    private var loading: Task<Void, Never>?
    private var generation = 0
    /// Why the last read failed, while the state is `.unknown`.
    private var readFailure: (any Error)?
    /// The live session (staged sign-ups included).
    private var session: StoredSession?
    /// A session signed out here whose revocation the server has not confirmed yet.
    private var revoking: StoredSession?
    private(set) var state: AuthenticationState = .unknown
    private var continuations: [UUID: AsyncStream<AuthenticationState>.Continuation] = [:]
    /// Feeds the delegate's main-actor task, which delivers the states in order.
    private var delegateFeed: AsyncStream<AuthenticationState>.Continuation?

    init(storage: any CredentialStorage, reinstall: ReinstallDetection, logger: SDKLogger) {
        self.storage = storage
        self.reinstall = reinstall
        self.logger = logger
    }

    /// Reads the stored session, once; concurrent callers wait for the same read.
    func load() async {
        if loaded { return }
        if let loading { return await loading.value }
        let started = generation
        let read = Task { await self.read(since: started) }
        loading = read
        await read.value
        loading = nil
    }

    private func read(since started: Int) async {
        do {
            var stored = try await storedSession()
            // Only once the storage could be read: never decided while the phone is locked.
            if reinstall.isFirstLaunch(), markLaunched() {
                do {
                    try await forgetEarlierInstallation()
                } catch {
                    // The marker would make the next reads and launches ordinary ones, which
                    // would take up the session it failed to drop: without it they try again.
                    reinstall.unmarkLaunched()
                    throw error
                }
                stored = nil
            }
            guard generation == started else { return }
            loaded = true
            readFailure = nil
            if stored?.revoking == true { revoking = stored } else { session = stored }
            publish(session.map { .authenticated(customerUri: $0.customerUri) } ?? .loggedOut)
        } catch {
            guard generation == started else { return }
            readFailure = error
            publish(.unknown)
        }
    }

    func sessionToken() async -> String? {
        await load()
        return session?.token
    }

    /// Stores the session as one item, then announces it.
    /// - Throws: the storage's error; the state and the stored session are then unchanged.
    func signIn(token: String, customerUri: String) async throws {
        generation += 1
        let new = StoredSession(token: token, customerUri: customerUri)
        try await storage.set(try new.encoded(), for: StoredSession.key)
        loaded = true
        readFailure = nil
        session = new
        revoking = nil
        publish(.authenticated(customerUri: customerUri))
    }

    /// A sign-up whose user exists but whose device key is not registered yet.
    private(set) var pendingSignup: (flowID: String, customerUri: String)?

    /// Holds the new session of a sign-up for the calls that finish it, without storing or announcing it.
    func stagePendingSignup(flowID: String, token: String, customerUri: String) async {
        await load()
        session = StoredSession(token: token, customerUri: customerUri)
        pendingSignup = (flowID, customerUri)
    }

    /// Stores and announces the session of a finished sign-up.
    /// - Throws: the storage's error.
    func completePendingSignup() async throws {
        guard let pending = pendingSignup, let token = session?.token else { return }
        try await signIn(token: token, customerUri: pending.customerUri)
        pendingSignup = nil
    }

    /// Records the first launch of this installation before its earlier session is dropped, and
    /// answers whether it could. Without the marker every later launch would look like the first
    /// and drop the session signed in since, so when it cannot be written the stored session stays
    /// (a reinstall that keeps a session costs less than a sign-out at every launch).
    private func markLaunched() -> Bool {
        do {
            try reinstall.markLaunched()
            return true
        } catch {
            logger.log(.warning, "The reinstall marker could not be written (\(error)); the stored session is kept.")
            return false
        }
    }

    /// Drops a session the server no longer accepts (`ifToken`: only that one; a refusal of an
    /// older session is ignored). Nothing to revoke; a failed delete leaves a dead session that
    /// the server refuses again after a relaunch, so it is not an error. The stored item goes only
    /// while it holds the refused token: when another process of the app (an extension, the app
    /// itself) has stored a newer session since, that session is kept and taken up here.
    func discard(ifToken token: String? = nil) async {
        await load()
        if let token, token != session?.token { return }
        generation += 1
        let discarding = generation
        loaded = true
        session = nil
        if let token {
            let newer = await dropStored(ifToken: token)
            // A sign-in or sign-out while the item was read wins over what it held.
            guard generation == discarding else { return }
            if let newer {
                session = newer
                publish(.authenticated(customerUri: newer.customerUri))
                return
            }
        } else {
            try? await storage.set(nil, for: StoredSession.key)
        }
        publish(.loggedOut)
    }

    /// Reads the stored session again at each moment of `signal` while it could not be read yet
    /// (the state is `.unknown`), until the returned task is cancelled.
    nonisolated func follow(_ signal: ProtectedDataSignal) -> Task<Void, Never> {
        let events = signal.makeEvents()
        return Task { [weak self] in
            for await _ in events {
                guard let self else { return }
                await self.readAgainIfUnknown()
            }
        }
    }

    private func readAgainIfUnknown() async {
        guard !loaded, state == .unknown else { return }
        await load()
    }

    /// Signs out here, at once and without the network: the session becomes one to revoke (kept,
    /// marked, so a revocation that cannot reach the server now is sent later).
    /// - Returns: the token to revoke, `nil` when there is no session.
    /// - Throws: the storage's error when the change could not be kept (this launch is signed out
    ///   anyway), or why the stored session could not be read.
    func beginSignOut() async throws -> String? {
        await load()
        if !loaded, let readFailure { throw readFailure }
        generation += 1
        guard var target = session ?? revoking else {
            publish(.loggedOut)
            return nil
        }
        target.revoking = true
        session = nil
        pendingSignup = nil
        revoking = target
        publish(.loggedOut)
        try await storage.set(try target.encoded(), for: StoredSession.key)
        return target.token
    }

    /// The session signed out here and not yet revoked on the server.
    func pendingRevocation() async -> String? {
        await load()
        return revoking?.token
    }

    /// The server revoked `token` (or no longer knows it): forget it.
    func revoked(_ token: String) async {
        guard revoking?.token == token else { return }
        revoking = nil
        if session == nil { _ = await dropStored(ifToken: token) }
    }

    /// Replaces the delegate (held weakly): one main-actor task delivers its states in order,
    /// starting with the current one, as a stream does.
    func setDelegate(_ delegate: (any AuthenticationDelegate)?) async {
        await load()
        delegateFeed?.finish()
        delegateFeed = nil
        guard let delegate else { return }
        let (states, feed) = AsyncStream<AuthenticationState>.makeStream()
        delegateFeed = feed
        feed.yield(state)
        Task { @MainActor [weak delegate] in
            for await state in states {
                guard let delegate else { return }
                delegate.authenticationStateDidChange(state)
            }
        }
    }

    /// A stream of every state change, starting with the current state (`.unknown` until the
    /// stored session has been read).
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
