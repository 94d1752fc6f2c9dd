import Foundation
import Synchronization

/// Fixed one-minute windows of request counts per key (an IP address, an account), in memory.
/// Each server process counts on its own; with several replicas the effective limit is the sum.
public final class RateLimiter: Sendable {
    private struct Window {
        var minute: Int64
        var count: Int
    }

    private let windows = Mutex<[String: Window]>([:])
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// Counts one request for `key`; false when the key already used `limit` in this minute.
    public func allow(_ key: String, limit: Int) -> Bool {
        let minute = Int64(now().timeIntervalSince1970 / 60)
        return windows.withLock { windows in
            if windows.count > 50_000 { windows = windows.filter { $0.value.minute == minute } }
            var window = windows[key].flatMap { $0.minute == minute ? $0 : nil } ?? Window(minute: minute, count: 0)
            guard window.count < limit else { return false }
            window.count += 1
            windows[key] = window
            return true
        }
    }

    /// Seconds until the current window ends.
    public var retryAfter: Int {
        let seconds = Int(now().timeIntervalSince1970.rounded(.down))
        return 60 - seconds % 60
    }
}
