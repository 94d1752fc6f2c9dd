/// The in-memory rate limits of this process, off when `rateLimits.enabled` is false.
public struct Throttle: Sendable {
    let limiter: RateLimiter
    let settings: RateLimitSettings

    public init(limiter: RateLimiter, settings: RateLimitSettings) {
        self.limiter = limiter
        self.settings = settings
    }

    /// Counts one event for `key`; false once `limit` events happened within the minute.
    func allow(_ key: String, limit: Int) -> Bool {
        !settings.enabled || limiter.allow(key, limit: limit)
    }

    /// Seconds until the current minute's window ends (`Retry-After`).
    var retryAfter: Int { limiter.retryAfter }
}
