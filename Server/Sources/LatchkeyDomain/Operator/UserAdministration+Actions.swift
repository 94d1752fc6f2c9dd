import Foundation
import LatchkeyCore

/// Operators' changes to a wallet: locks, statuses of the wallet and its devices, unlinking, ending
/// sessions, marking verified, erasing.
extension UserAdministration {
    /// Sets the operator lock. Throws `DomainError(.unknownUser)`.
    public func lock(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.lockUser), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            try await store.setLocked(userID: user.id, locked: true)
        }
    }

    /// Lifts the locks, in one transaction: the operator lock, the failure count, a deactivation
    /// that failures caused (of the wallet, and of each device), the smart lockout of unlinked
    /// devices. A deactivation by an operator is not a lock: it stays (`AdminStore.unlockUser`).
    /// Throws `DomainError(.unknownUser)`.
    public func unlock(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.unlockUser), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            _ = try await store.unlockUser(userID: user.id, limits: issuer.attemptLimits, now: now())
        }
    }

    /// Ends every session and device token of the user, in one transaction. Throws `DomainError(.unknownUser)`.
    public func endSessions(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.endUserSessions), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            try await store.endUserSessions(userID: user.id, now: now())
        }
    }

    /// Deactivates (ending its sessions) or reactivates (forgiving its failures) the wallet.
    /// Throws `DomainError(.unknownUser)`.
    public func setStatus(_ user: OperatorTrail.UserReference, _ status: UserStatus, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.setting(status)), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            try await store.setUserStatus(userID: user.id, change: status.change, now: now())
        }
    }

    /// Sets one device's status: `deactivated` (its sessions end, its certificates are revoked),
    /// `suspended` (its sessions end) or `active` (its failures forgiven).
    /// Throws `DomainError(.unknownUser)` or `DomainError(.unknownDevice)`.
    public func setStatus(_ user: OperatorTrail.UserReference, device: String, _ status: DeviceStatus, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.setting(status)), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            guard try await store.device(userID: user.id, deviceID: device) != nil else { throw DomainError(.unknownDevice, field: "deviceId") }
            try await store.setDeviceStatus(userID: user.id, deviceID: device, change: status.change, now: now())
        }
    }

    /// Unlinks a device: its sessions, device tokens and certificates end with it.
    /// Throws `DomainError(.unknownUser)` or `DomainError(.unknownDevice)`.
    public func unlink(_ user: OperatorTrail.UserReference, device: String, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.unlinkDevice), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            // Asked first: a write carries the call's event, so a refusal must come before it.
            guard try await store.device(userID: user.id, deviceID: device) != nil else { throw DomainError(.unknownDevice, field: "deviceId") }
            trail.record(.deviceUnlinked, user: user.id, deviceID: device, at: now())
            _ = try await store.unlinkDevice(userID: user.id, deviceID: device, now: now(), messages: [])
        }
    }

    /// Ends one live session (`UserDetail`'s session id): at once on this replica, within
    /// `SessionCache.lifetime` on the others. Throws `DomainError(.unknownUser)` or
    /// `DomainError(.unknownSession)` (one revoked, expired or idle is not live).
    public func endSession(_ user: OperatorTrail.UserReference, sessionID: String, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.endSession), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            let time = now()
            // Asked first: a write carries the call's event, so a refusal must come before it.
            guard let session = try await store.liveSession(
                userID: user.id, sessionID: sessionID, now: time,
                idleBefore: time.addingTimeInterval(-TimeInterval(issuer.sessions.idleTimeoutSeconds))) else {
                throw DomainError(.unknownSession, field: "sessionId")
            }
            trail.record(.sessionEnded, user: user.id, deviceID: session.deviceID, details: ["by": "operator"], at: time)
            try await store.revokeSession(digest: session.digest, now: time)
        }
    }

    /// Marks the email address (and the app instance) verified, as `latchkey users verify`.
    /// Throws `DomainError(.unknownUser)`.
    public func markVerified(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.markVerified), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            try Self.requireEmail(user)
            try await store.markEmailVerified(userID: user.id)
            try await store.markAppInstanceVerified(userID: user.id)
        }
    }

    /// Erases the user (`AdminActionStore.eraseUser`): a `user.erased` event keeps the user id.
    /// Throws `DomainError(.unknownUser)`.
    public func erase(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.eraseUser), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            trail.record(.userErased, user: user.id, at: now())
            guard try await store.eraseUser(userID: user.id, now: now()) else { throw DomainError(.unknownUser, field: "userId") }
        }
    }

    /// A phone sign-up may have no address: nothing to send to or to verify.
    package static func requireEmail(_ user: UserRecord) throws {
        guard !user.email.isEmpty else { throw DomainError(.noEmailAddress) }
    }
}
