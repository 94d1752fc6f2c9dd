import Foundation
import LatchkeyCore

extension AuthenticationService {
    /// The live session of a bearer token; refreshes its idle time. 403 (not logged in) otherwise.
    public func session(bearer token: String?) async throws -> SessionRecord {
        guard let token, !token.isEmpty,
              let session = try await store.touchSession(digest: SecureRandom.digest(token), now: now(),
                                                         idle: TimeInterval(issuer.sessions.idleTimeoutSeconds))
        else { throw DomainError.notLoggedIn }
        return session
    }

    /// `GET /v1/auth/session`.
    public func describe(_ session: SessionRecord) -> SessionDescription {
        SessionDescription(customerUri: EnrollmentService.customerURI(session.userID), deviceID: session.deviceID,
                           createdAt: session.createdAt, lastSeenAt: session.lastSeenAt,
                           idleExpiresAt: session.lastSeenAt.addingTimeInterval(TimeInterval(issuer.sessions.idleTimeoutSeconds)),
                           expiresAt: session.expiresAt)
    }

    /// `logout`: revokes the session; 403 when not logged in.
    public func logout(bearer token: String?) async throws {
        let session = try await session(bearer: token)
        try await store.revokeSession(digest: session.digest, now: now())
    }

    /// `generateDeviceAuthenticationToken`: while logged in on this device, the user's username and
    /// password give a long-lived token bound to the device. 432 when the issuer turned it off,
    /// 419 for wrong credentials (which count toward lockout).
    public func generateDeviceToken(bearer: String?, username: String, password: String, device: DeviceContext) async throws
        -> (token: String, expiresAt: Date) {
        let session = try await session(bearer: bearer)
        guard issuer.deviceAuthentication.enabled else { throw DomainError.deviceTokensDisabled }
        guard let deviceID = device.deviceID, deviceID == session.deviceID else { throw DomainError.notLoggedIn }
        guard let user = try await store.user(id: session.userID) else { throw DomainError.notLoggedIn }
        if EmailAddress.normalized(username) != user.emailNormalized {
            try await hasher.burn(password)
            throw DomainError.deviceTokenWrongCredentials
        }
        try await checkCredential(password, against: user.passwordHash, user: user, deviceID: deviceID,
                                  wrong: .deviceTokenWrongCredentials)
        let token = SecureRandom.token()
        let time = now()
        let expiresAt = time.addingTimeInterval(TimeInterval(issuer.deviceAuthentication.lifetimeDays) * 86_400)
        try await store.createDeviceToken(DeviceTokenRecord(digest: SecureRandom.digest(token), userID: user.id,
                                                            deviceID: deviceID, createdAt: time, expiresAt: expiresAt))
        return (token, expiresAt)
    }

    /// `loginWithDeviceAuthenticationToken`: only from the device that generated the token; 401
    /// for an unknown, expired, revoked or foreign token; 412 wallet deactivated; 423 device deactivated.
    public func loginWithDeviceToken(_ token: String, device: DeviceContext) async throws -> LoginOutcome {
        if token.isEmpty { throw DomainError.invalidField("deviceToken", "deviceToken is required.") }
        guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
        guard let record = try await store.deviceToken(digest: SecureRandom.digest(token)), record.revokedAt == nil,
              record.expiresAt > now(), ConstantTime.equal(Array(record.deviceID.utf8), Array(deviceID.utf8)),
              let user = try await store.user(id: record.userID)
        else { throw DomainError.wrongCredentials }
        if user.status != .active { throw DomainError.deviceTokenWalletDeactivated }
        _ = try await linkedDevice(user: user, deviceID: deviceID)
        return try await startSession(user, deviceID: deviceID)
    }

    /// `expireDeviceAuthenticationToken`: revokes the token; 403 when it has already expired.
    public func expireDeviceToken(_ token: String) async throws {
        if token.isEmpty { throw DomainError.invalidField("deviceToken", "deviceToken is required.") }
        guard try await store.revokeDeviceToken(digest: SecureRandom.digest(token), now: now()) else {
            throw DomainError.deviceTokenAlreadyExpired
        }
    }
}
