import Foundation

/// The per-IP and per-account rate limits, off when `rateLimits.enabled` is false. Counted in
/// memory (one server on SQLite) or in the database (`WindowCounterStore`, the default on
/// PostgreSQL), where every replica of the database counts toward one limit.
public struct Throttle: Sendable {
    package let limiter: RateLimiter
    package let settings: RateLimitSettings
    /// The database's counters when the limits are shared.
    package let shared: (any WindowCounterStore)?
    package let now: @Sendable () -> Date
    /// The shared counts as this replica last saw them (most requests write nothing).
    package let counts = SharedWindowCounts()

    public init(limiter: RateLimiter, settings: RateLimitSettings, shared: (any WindowCounterStore)? = nil,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.limiter = limiter
        self.settings = settings
        self.shared = shared
        self.now = now
    }

    /// Counts one event for `key` within the minute; nil when it is within `limit`, else the
    /// seconds to wait (`Retry-After`).
    package func refusal(_ key: String, limit: Int) async throws -> Int? {
        guard settings.enabled else { return nil }
        guard let shared else { return limiter.allow(key, limit: limit) ? nil : limiter.retryAfter }
        let time = now(), row = "rate:" + key
        switch counts.decide(row, limit: limit, window: 60, now: time) {
        case .allow:
            return nil
        case .refuse(let until):
            return until.retryAfter(from: time)
        case .write(let pending):
            let state: (count: Int, windowStart: Date)
            do {
                state = try await shared.add(row, count: pending + 1, window: 60, now: time)
            } catch {
                counts.restore(row, pending: pending)
                throw error
            }
            counts.record(row, count: state.count, windowStart: state.windowStart, now: time, window: 60)
            guard state.count > limit else { return nil }
            return state.windowStart.addingTimeInterval(60).retryAfter(from: time)
        }
    }
}
