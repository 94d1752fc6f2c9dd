import LatchkeyDomain

/// The limit of requests per minute from one client address (`rateLimits.requestsPerMinutePerIP`),
/// counted by the `Throttle`: the API's operations and the portal's pages share one count.
package struct AddressRateLimit: Sendable {
    package let throttle: Throttle

    package init(throttle: Throttle) { self.throttle = throttle }

    /// Counts a request from `address`: nil when it is within the limit, else the seconds to wait
    /// (`Retry-After`).
    /// - Throws: the shared counter store's error.
    package func refusal(_ address: String) async throws -> Int? {
        try await throttle.refusal("ip:" + address, limit: throttle.settings.requestsPerMinutePerIP)
    }
}
