import Foundation
import LatchkeyCore

extension AuthenticationService {
    /// `GET /v1/auth/session`.
    public func describe(_ session: SessionRecord) -> SessionDescription {
        SessionDescription(customerUri: EnrollmentService.customerURI(session.userID), deviceID: session.deviceID,
                           createdAt: session.createdAt, lastSeenAt: session.lastSeenAt,
                           idleExpiresAt: session.lastSeenAt.addingTimeInterval(TimeInterval(issuer.sessions.idleTimeoutSeconds)),
                           expiresAt: session.expiresAt)
    }

    /// `logout`: revokes the principal's session.
    public func logout(_ principal: Principal, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        audit(.sessionEnded, user: principal.userID, reason: .logout, deviceID: principal.session.deviceID, for: caller)
        try await store.revokeSession(digest: principal.session.digest, now: now())
    }

    /// `generateDeviceAuthenticationToken`: while logged in on this device, the user's username and
    /// password give a long-lived token bound to the device. 432 when the issuer turned it off,
    /// 419 for wrong credentials (which count toward lockout).
    public func generateDeviceToken(_ principal: Principal, username: String, password: String, caller: Caller) async throws
        -> (token: String, expiresAt: Date) {
        let store = self.store.recording(into: caller.audit)
        return try await admitted(1, for: caller) { hasher in
            guard issuer.deviceAuthentication.enabled else { throw DomainError.deviceTokensDisabled }
            guard let deviceID = caller.device.deviceID, deviceID == principal.deviceID else { throw DomainError.notLoggedIn }
            try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
            let user = try await principal.user()
            if EmailAddress.normalized(username) != user.emailNormalized {
                try await hasher.burn(password)
                throw DomainError.deviceTokenWrongCredentials
            }
            try await verifier.check(password, against: user.passwordHash, user: user, deviceID: deviceID, source: .session,
                                     wrong: .deviceTokenWrongCredentials, hasher: hasher, caller: caller)
            audit(.deviceTokenCreated, user: user.id, deviceID: deviceID, for: caller)
            let token = SecureRandom.token()
            let time = now()
            let expiresAt = time.addingTimeInterval(TimeInterval(issuer.deviceAuthentication.lifetimeDays) * 86_400)
            try await store.createDeviceToken(DeviceTokenRecord(digest: SecureRandom.digest(token), userID: user.id,
                                                                deviceID: deviceID, createdAt: time, expiresAt: expiresAt),
                                              messages: try outbox.securityNotice(.deviceToken, to: user, answering: caller, at: time))
            return (token, expiresAt)
        }
    }

    /// `loginWithDeviceAuthenticationToken`: only from the device that generated the token; 401
    /// for an unknown, expired, revoked or foreign token; 412 wallet deactivated; 423 device deactivated.
    public func loginWithDeviceToken(_ token: String, caller: Caller) async throws -> LoginOutcome {
        if token.isEmpty { throw DomainError.invalidField("deviceToken", "deviceToken is required.") }
        let device = caller.device
        guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
        guard let record = try await store.deviceToken(digest: SecureRandom.digest(token)), record.revokedAt == nil,
              record.expiresAt > now(), ConstantTime.equal(Array(record.deviceID.utf8), Array(deviceID.utf8)),
              let user = try await store.user(id: record.userID)
        else { throw DomainError.wrongCredentials }
        if user.status != .active { throw DomainError.deviceTokenWalletDeactivated }
        _ = try await verifier.linkedDevice(user: user, deviceID: deviceID)
        return try await sessions.start(user, device: device, method: .deviceToken, caller: caller)
    }

    /// `expireDeviceAuthenticationToken`: revokes the token; 403 when it has already expired.
    public func expireDeviceToken(_ token: String) async throws {
        if token.isEmpty { throw DomainError.invalidField("deviceToken", "deviceToken is required.") }
        guard try await store.revokeDeviceToken(digest: SecureRandom.digest(token), now: now()) else {
            throw DomainError.deviceTokenAlreadyExpired
        }
    }
}
