import Foundation
import LatchkeyCore

/// Who a request is: resolved once at the edge from its session token (`EdgeMiddleware`) and
/// handed to the services, which never see a token.
public struct Principal: Sendable {
    /// The live session (its idle time already refreshed).
    public let session: SessionRecord
    package let store: any UserStore

    /// The wallet the session belongs to.
    public var userID: String { session.userID }

    /// The wallet, read now: a call that needs it reads it once (a session check does not, and
    /// stays as cheap as the session cache). `refusal` when the wallet is gone.
    public func user(or refusal: DomainError = DomainError(.notLoggedIn)) async throws -> UserRecord {
        guard let user = try await store.user(id: session.userID) else { throw refusal }
        return user
    }

    /// The device the session was opened on.
    public var deviceID: String? { session.deviceID }
    /// When the session's login checked a knowledge factor (password, PIN or MFA answer); nil when
    /// it checked none (a device token, the registration nonce, SSO, a phone sign-up).
    public var factorCheckedAt: Date? { session.factorCheckedAt }

    /// Refuses a change that needs a privileged session: one whose login checked a knowledge factor
    /// at most `seconds` ago (a stolen session, or the phone with its device token, cannot take the
    /// account over).
    ///
    /// - Throws: `DomainError(.sessionRefreshRequired)` (403) for any other session.
    public func requirePrivileged(within seconds: Int, now: Date) throws {
        guard let checked = factorCheckedAt, now.timeIntervalSince(checked) <= TimeInterval(seconds) else {
            throw DomainError(.sessionRefreshRequired)
        }
    }
}

/// What the edge found out about a request's identity.
public enum Identity: Sendable {
    /// No session token was sent.
    case anonymous
    /// A token was sent but names no live session (unknown, expired, idle or revoked).
    case invalidToken
    /// A live session.
    case authenticated(Principal)

    /// The principal, or `refusal` (`notLoggedIn` on the wallet API, `sessionInactive` on Kratos's).
    public func require(or refusal: DomainError = DomainError(.notLoggedIn)) throws -> Principal {
        guard case .authenticated(let principal) = self else { throw refusal }
        return principal
    }
}

extension AuthenticationService {
    /// Resolves a session token: refreshes the session's idle time (sessions are cached 1 s).
    public func identity(token: String?) async throws -> Identity {
        try await sessionLookup.identity(token: token)
    }

    /// What resolving a token needs, as one reference: the edge keeps it, where calling the
    /// service (a struct of many collaborators) copied them all on every request.
    public var sessionLookup: SessionLookup {
        SessionLookup(store: store, idle: TimeInterval(issuer.sessions.idleTimeoutSeconds), now: now)
    }
}

/// Resolves session tokens into identities (`AuthenticationService.identity(token:)`).
public final class SessionLookup: Sendable {
    private let store: any AuthenticationService.Store
    private let idle: TimeInterval
    private let now: @Sendable () -> Date

    init(store: any AuthenticationService.Store, idle: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.idle = idle
        self.now = now
    }

    /// Refreshes the session's idle time; `.anonymous` without a token, `.invalidToken` for one
    /// that names no live session.
    public func identity(token: String?) async throws -> Identity {
        guard let token, !token.isEmpty else { return .anonymous }
        guard let session = try await store.touchSession(digest: SecureRandom.digest(token), now: now(), idle: idle)
        else { return .invalidToken }
        return .authenticated(Principal(session: session, store: store))
    }
}
