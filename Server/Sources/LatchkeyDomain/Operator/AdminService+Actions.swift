import Foundation
import LatchkeyCore

/// The admin API's actions on a wallet beyond locks: statuses of the wallet and its devices,
/// unlinking, ending one session, the emails support sends, marking verified, erasing.
extension AdminService {
    /// Deactivates (ending its sessions) or reactivates (forgiving its failures) the wallet.
    /// Throws `DomainError(.unknownUser)`.
    public func setStatus(userID: String, _ status: UserStatus, for call: OperatorCall) async throws {
        try await recorded(.admin(.setting(status)), userID: userID, call: call) { user, store, trail in
            try await store.setUserStatus(userID: user.id, change: status.change, now: now())
        }
    }

    /// Sets one device's status: `deactivated` (its sessions end, its certificates are revoked),
    /// `suspended` (its sessions end) or `active` (its failures forgiven).
    /// Throws `DomainError(.unknownUser)` or `DomainError(.unknownDevice)`.
    public func setStatus(userID: String, device: String, _ status: DeviceStatus, for call: OperatorCall) async throws {
        try await recorded(.admin(.setting(status)), userID: userID, call: call) { user, store, trail in
            guard try await store.device(userID: user.id, deviceID: device) != nil else { throw DomainError(.unknownDevice, field: "deviceId") }
            try await store.setDeviceStatus(userID: user.id, deviceID: device, change: status.change, now: now())
        }
    }

    /// Unlinks a device: its sessions, device tokens and certificates end with it.
    /// Throws `DomainError(.unknownUser)` or `DomainError(.unknownDevice)`.
    public func unlink(userID: String, device: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.unlinkDevice), userID: userID, call: call) { user, store, trail in
            // Asked first: a write carries the call's event, so a refusal must come before it.
            guard try await store.device(userID: user.id, deviceID: device) != nil else { throw DomainError(.unknownDevice, field: "deviceId") }
            trail.record(.deviceUnlinked, user: user.id, deviceID: device, at: now())
            _ = try await store.unlinkDevice(userID: user.id, deviceID: device, now: now(), messages: [])
        }
    }

    /// Ends one live session (`UserDetail`'s session id): at once on this replica, within
    /// `SessionCache.lifetime` on the others. Throws `DomainError(.unknownUser)` or
    /// `DomainError(.unknownSession)` (one revoked, expired or idle is not live).
    public func endSession(userID: String, sessionID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.endSession), userID: userID, call: call) { user, store, trail in
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

    /// Sends a new verification link to the user's address, voiding none of the earlier ones.
    /// Throws `DomainError(.unknownUser)`, or `DomainError(.alreadyVerified)`.
    public func resendVerification(userID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.resendVerification), userID: userID, call: call) { user, store, trail in
            try Self.requireEmail(user)
            guard !user.emailVerified else { throw DomainError(.alreadyVerified) }
            let link = try outbox.emailVerification(userID: user.id, to: user.email, firstName: user.firstName, at: now())
            try await store.issueToken(link.token, messages: [link.message])
        }
    }

    /// Sends a link to the secure portal to reset the password or the passcode, as a forgotten
    /// credential's request does (the user's pending MFA question travels with it).
    /// Throws `DomainError(.unknownUser)`.
    public func sendResetLink(userID: String, _ kind: CredentialKind, for call: OperatorCall) async throws {
        try await recorded(.admin(.sendResetLink), userID: userID, call: call) { user, store, trail in
            try Self.requireEmail(user)
            let link = try outbox.resetLink(kind, for: user, question: try await verifier.pendingQuestion(for: user), at: now())
            trail.record(.resetRequested, user: user.id, details: ["credential": kind.rawValue, "by": "operator"], at: now())
            try await store.issueToken(link.token, messages: [link.message])
        }
    }

    /// Marks the email address (and the app instance) verified, as the CLI's `users verify`.
    /// Throws `DomainError(.unknownUser)`.
    public func markVerified(userID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.markVerified), userID: userID, call: call) { user, store, trail in
            try Self.requireEmail(user)
            try await store.markEmailVerified(userID: user.id)
            try await store.markAppInstanceVerified(userID: user.id)
        }
    }

    /// Erases the user (`AdminActionStore.eraseUser`): a `user.erased` event keeps the user id.
    /// Throws `DomainError(.unknownUser)`.
    public func erase(userID: String, for call: OperatorCall) async throws {
        try await recorded(.admin(.eraseUser), userID: userID, call: call) { user, store, trail in
            trail.record(.userErased, user: user.id, at: now())
            guard try await store.eraseUser(userID: user.id, now: now()) else { throw DomainError(.unknownUser, field: "userId") }
        }
    }

    /// A phone sign-up may have no address: nothing to send to or to verify.
    private static func requireEmail(_ user: UserRecord) throws {
        guard !user.email.isEmpty else { throw DomainError(.noEmailAddress) }
    }
}
