import Foundation
import LatchkeyCore

/// Who a request is: resolved once at the edge from its session token (`IdentityMiddleware`) and
/// handed to the services, which never see a token.
public struct Principal: Sendable, Equatable {
    /// The wallet the session belongs to, as read when the request arrived.
    public let user: UserRecord
    /// The live session (its idle time already refreshed).
    public let session: SessionRecord

    /// The device the session was opened on.
    public var deviceID: String? { session.deviceID }
    /// When the session's credential was checked: sessions are only opened by a login.
    public var authenticatedAt: Date { session.createdAt }
}

/// What the edge found out about a request's identity.
public enum Identity: Sendable, Equatable {
    /// No session token was sent.
    case anonymous
    /// A token was sent but names no live session (unknown, expired, idle, revoked, or its wallet is gone).
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
    /// Resolves a session token: refreshes the session's idle time and reads its wallet.
    public func identity(token: String?) async throws -> Identity {
        guard let token, !token.isEmpty else { return .anonymous }
        guard let session = try await store.touchSession(digest: SecureRandom.digest(token), now: now(),
                                                          idle: TimeInterval(issuer.sessions.idleTimeoutSeconds)),
              let user = try await store.user(id: session.userID)
        else { return .invalidToken }
        return .authenticated(Principal(user: user, session: session))
    }
}
