import Foundation
import Synchronization

/// Fixed one-minute windows of request counts per key (an IP address, an account), in memory.
/// Each server process counts on its own; with several replicas the effective limit is the sum.
public final class RateLimiter: Sendable {
    /// The counts of the current minute: a new minute starts from an empty map, so a call does a
    /// lookup and at most once a minute drops the last minute's map, never a pass over the whole
    /// map under the lock (which a flood of distinct keys would make as long as the flood).
    private struct Minute {
        var minute: Int64 = 0
        var counts: [String: Int] = [:]
    }

    /// Keys one minute can hold; past it, requests of new keys are refused for the rest of the
    /// minute (a flood of distinct keys cannot grow the map without bound nor slip past the limit).
    public static let capacity = 200_000
    private let state = Mutex(Minute())
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// Counts one request for `key`; false when the key already used `limit` in this minute, or
    /// when the minute is full and `key` is new.
    public func allow(_ key: String, limit: Int) -> Bool {
        let minute = Int64(now().timeIntervalSince1970 / 60)
        return state.withLock { state in
            if state.minute != minute {
                state.minute = minute
                state.counts.removeAll(keepingCapacity: true)
            }
            let count = state.counts[key]
            guard count != nil || state.counts.count < Self.capacity else { return false }
            guard (count ?? 0) < limit else { return false }
            state.counts[key] = (count ?? 0) + 1
            return true
        }
    }

    public var retryAfter: Int {
        let seconds = Int(now().timeIntervalSince1970.rounded(.down))
        return 60 - seconds % 60
    }
}
