import Foundation
import LatchkeyCore

/// What an operator may do to wallets (`latchkey users …`): read them, lock and unlock,
/// deactivate, suspend and reactivate wallets and devices, mark an address verified. Knows no
/// terminal; refuses with `OperatorError`.
public struct OperatorService: Sendable {
    /// Users, their devices and statuses.
    public typealias Store = UserStore & DeviceStore & CredentialStore & AuditStore & StatisticsStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let now: @Sendable () -> Date

    public init(store: any Store, issuer: IssuerSettings, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.issuer = issuer
        self.now = now
    }

    /// Users of the issuer, newest first.
    public func users(limit: Int, offset: Int) async throws -> [UserRecord] {
        try await store.users(issuer: issuer.id, limit: limit, offset: offset)
    }

    /// The user with this address. Throws `OperatorError.unknownUser`.
    public func user(email: String) async throws -> UserRecord {
        guard let user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email)) else {
            throw OperatorError.unknownUser(email)
        }
        return user
    }

    /// The devices linked to a user.
    public func devices(of user: UserRecord) async throws -> [DeviceRecord] {
        try await store.devices(userID: user.id)
    }

    /// The login statistics of a user's devices over the last `days` days, each device's counts
    /// added up per method.
    public func loginStatistics(of user: UserRecord, days: Int) async throws -> [String: [LoginStatistics]] {
        let since = LoginStatisticsService.day(of: now()) - days + 1
        var byDevice: [String: [LoginStatisticsMethod: LoginStatistics]] = [:]
        for daily in try await store.loginStatistics(userID: user.id, deviceID: nil, sinceDay: since) {
            byDevice[daily.deviceID, default: [:]][daily.statistics.method, default: LoginStatistics(method: daily.statistics.method)]
                .add(daily.statistics)
        }
        return byDevice.mapValues { methods in LoginStatisticsMethod.allCases.compactMap { methods[$0] } }
    }

    /// Sets the standing of a wallet; anything but `active` ends its sessions, `active` clears its
    /// failure count. Throws `OperatorError.unknownUser`.
    public func setStatus(email: String, _ status: UserStatus) async throws {
        let user = try await user(email: email)
        try await audited(.admin(.setting(status)), user: user) { store in
            try await store.setUserStatus(userID: user.id, status: status, now: now())
        }
    }

    /// Sets the standing of one device of a wallet; anything but `active` ends the device's
    /// sessions. Throws `OperatorError.unknownUser` or `.unknownDevice`.
    public func setStatus(email: String, device: String, _ status: DeviceStatus) async throws {
        let user = try await user(email: email)
        guard try await store.device(userID: user.id, deviceID: device) != nil else {
            throw OperatorError.unknownDevice(device, email: email)
        }
        try await audited(.admin(.setting(status)), user: user, deviceID: device) { store in
            try await store.setDeviceStatus(userID: user.id, deviceID: device, status: status, now: now())
        }
    }

    /// The operator lock: credential changes answer 424 while it is on.
    public func setLocked(email: String, _ locked: Bool) async throws {
        let user = try await user(email: email)
        try await audited(.admin(locked ? .lockUser : .unlockUser), user: user) { store in
            try await store.setLocked(userID: user.id, locked: locked)
        }
    }

    /// Marks the address and the app instance verified.
    public func verify(email: String) async throws {
        let user = try await user(email: email)
        try await audited(.admin(.markVerified), user: user) { store in
            try await store.markEmailVerified(userID: user.id)
            try await store.markAppInstanceVerified(userID: user.id)
        }
    }

    /// Runs an operator's change in its own audit scope, recorded as `operator.command` under the
    /// name the admin API gives the same action.
    package func audited(_ command: OperatorCommand, user: UserRecord?, deviceID: String? = nil,
                 _ change: (Store) async throws -> Void) async throws {
        try await AuditTrail.run(actor: .operator, store: store) { trail in
            trail.record(.operatorCommand, user: user?.id, deviceID: deviceID, details: command.details, at: now())
            try await change(store.recording(into: trail))
        }
    }
}

/// Why an operator command cannot be carried out.
public enum OperatorError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownUser(String)
    case unknownDevice(String, email: String)
    case unknownKey(String)
    case invalidKeyRequest(String)
    case duplicateOperator(String)
    case invalidOperatorRequest(String)

    public var description: String {
        switch self {
        case .unknownUser(let email): "No user with email \(email)."
        case .unknownDevice(let device, let email): "Device \(device) is not linked to \(email)."
        case .unknownKey(let id): "No operator key \(id) that is not revoked."
        case .invalidKeyRequest(let reason): reason
        case .duplicateOperator(let email): "There is an operator with email \(email) already."
        case .invalidOperatorRequest(let reason): reason
        }
    }
}
