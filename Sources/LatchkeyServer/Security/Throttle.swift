import Foundation

/// The per-IP and per-account rate limits, off when `rateLimits.enabled` is false. Counted in
/// memory (one server on SQLite) or in the database (`WindowCounterStore`, the default on
/// PostgreSQL), where every replica of the database counts toward one limit.
public struct Throttle: Sendable {
    let limiter: RateLimiter
    let settings: RateLimitSettings
    /// The database's counters when the limits are shared.
    let shared: (any WindowCounterStore)?
    let now: @Sendable () -> Date

    public init(limiter: RateLimiter, settings: RateLimitSettings, shared: (any WindowCounterStore)? = nil,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.limiter = limiter
        self.settings = settings
        self.shared = shared
        self.now = now
    }

    /// Counts one event for `key` within the minute; nil when it is within `limit`, else the
    /// seconds to wait (`Retry-After`).
    func refusal(_ key: String, limit: Int) async throws -> Int? {
        guard settings.enabled else { return nil }
        if let shared {
            let time = now()
            guard let until = try await shared.hit("rate:" + key, limit: limit, window: 60, now: time) else { return nil }
            return max(1, Int(until.timeIntervalSince(time).rounded(.up)))
        }
        return limiter.allow(key, limit: limit) ? nil : limiter.retryAfter
    }
}
