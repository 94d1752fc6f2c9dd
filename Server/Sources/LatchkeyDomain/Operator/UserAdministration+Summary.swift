import Foundation
import LatchkeyCore

/// The reads of `latchkey users list` and `show`: a page of users by offset, and one user with its
/// devices and their login statistics. Recorded as the admin API records its reads of users
/// (`listUsers`, `getUser`).
extension UserAdministration {
    /// One user, its devices and each device's login statistics over the last `days` days, each
    /// device's counts added up per method (by device id).
    public struct Summary: Sendable {
        public var user: UserRecord
        public var devices: [DeviceRecord]
        public var loginStatistics: [String: [LoginStatistics]]
    }

    /// Users of the issuer, newest first, `limit` after the first `offset`.
    public func users(limit: Int, offset: Int, for call: OperatorCall) async throws -> [UserRecord] {
        try await trail.recorded(.admin(.listUsers), user: nil, call: call) {
            try await store.users(issuer: issuer.id, limit: limit, offset: offset)
        }
    }

    /// The user `reference` names with its devices and their login statistics over the last
    /// `days` days. Throws `DomainError(.unknownUser)`.
    public func summary(_ reference: OperatorTrail.UserReference, days: Int, for call: OperatorCall) async throws -> Summary {
        try await trail.recorded(.admin(.getUser), user: reference, call: call) { user, _ in
            let since = LoginStatisticsService.day(of: now()) - days + 1
            var byDevice: [String: [LoginStatisticsMethod: LoginStatistics]] = [:]
            for daily in try await store.loginStatistics(userID: user.id, deviceID: nil, sinceDay: since) {
                byDevice[daily.deviceID, default: [:]][daily.statistics.method, default: LoginStatistics(method: daily.statistics.method)]
                    .add(daily.statistics)
            }
            return Summary(user: user, devices: try await store.devices(userID: user.id),
                           loginStatistics: byDevice.mapValues { methods in LoginStatisticsMethod.allCases.compactMap { methods[$0] } })
        }
    }
}
