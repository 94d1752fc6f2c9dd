import Foundation
import LatchkeyCore
import Metrics

/// The spec's `collectStatistics` on the server: what apps report of their logins, added up per
/// device and day in the database (so replicas add to the same rows), kept for
/// `issuer.statistics.retentionDays`, and counted in the metrics.
public struct LoginStatisticsService: Sendable {
    let store: any StatisticsStore
    let settings: StatisticsSettings
    let now: @Sendable () -> Date

    public init(store: any StatisticsStore, settings: StatisticsSettings, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.settings = settings
        self.now = now
    }

    /// Adds a batch to the counts of the caller's device (the one its session was opened on, never
    /// one the body or a header names) for the day of receipt: the server's day, since the phone's
    /// clock decides nothing. A batch sent again (its id taken before) adds nothing.
    /// - Throws: `not_found` (404) when the issuer turned statistics off; `invalid_field` naming
    ///   `batchId`, `statistics` or `statistics[i].<property>` for a batch or counts out of their
    ///   bounds, or `X-Device-ID` for a session opened on no device; `not_logged_in` without a session.
    public func submit(_ batch: [LoginStatistics], id: String, caller: Caller) async throws {
        guard settings.enabled else {
            throw DomainError(.notFound, message: "This issuer does not collect login statistics.")
        }
        let principal = try caller.identity.require()
        do { try LoginStatistics.validate(batch: batch, id: id) } catch { throw DomainError.invalidField(error.field, error.text) }
        guard let deviceID = principal.deviceID else {
            throw DomainError.invalidField("X-Device-ID", "This session was opened on no device; statistics are kept per device.")
        }
        var merged: [LoginStatisticsMethod: LoginStatistics] = [:]
        for entry in batch { merged[entry.method, default: LoginStatistics(method: entry.method)].add(entry) }
        let entries = LoginStatisticsMethod.allCases.compactMap { merged[$0] }
        guard try await store.addLoginStatistics(userID: principal.userID, deviceID: deviceID, day: Self.day(of: now()),
                                                 batchID: id, entries) else { return }
        for entry in entries { Self.count(entry) }
    }

    /// The counts of a wallet's devices (one device's when given) over the last `days` days,
    /// newest day first.
    public func statistics(userID: String, deviceID: String? = nil, days: Int) async throws -> [DailyLoginStatistics] {
        try await store.loginStatistics(userID: userID, deviceID: deviceID, sinceDay: Self.day(of: now()) - days + 1)
    }

    /// Days since 1970 (UTC), the unit the counts are kept in.
    public static func day(of date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    /// The sums every replica exposes in `/metrics`: logins by method, outcome and code (`200` for
    /// a success, `412` for an MFA prompt), and the latency's sum (with the count, the mean).
    static func count(_ entry: LoginStatistics) {
        let method = entry.method.rawValue
        func logins(_ outcome: String, _ code: String, _ value: Int) {
            guard value > 0 else { return }
            Counter(label: "latchkey_app_logins_total", dimensions: [("method", method), ("outcome", outcome), ("code", code)])
                .increment(by: value)
        }
        logins("success", "200", entry.successes)
        logins("mfa_required", "412", entry.mfaPrompts)
        for (code, value) in entry.failures { logins("failure", code, value) }
        Counter(label: "latchkey_app_login_latency_milliseconds_total", dimensions: [("method", method)])
            .increment(by: entry.totalLatencyMilliseconds)
    }
}

/// One device's counts of one method on one day.
public struct DailyLoginStatistics: Sendable, Equatable {
    public var deviceID: String
    /// Days since 1970 (UTC).
    public var day: Int
    public var statistics: LoginStatistics
    public init(deviceID: String, day: Int, statistics: LoginStatistics) {
        self.deviceID = deviceID
        self.day = day
        self.statistics = statistics
    }
}
