import Foundation
import Synchronization

/// The proof ids this process has seen within their lifetime. Bounded in time: entries older than
/// `lifetime` are dropped in one sweep when the map has doubled since the last one, so an insert is
/// amortized O(1) and memory follows the request rate, not the uptime.
package final class ReplayCache: Sendable {
    private struct State {
        var seen: [String: Date] = [:]
        var sweepAt = 1024
    }
    private let state = Mutex(State())
    package let lifetime: TimeInterval

    package init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// Records `id`; false when it was seen within the lifetime (a replay).
    package func insert(_ id: String, at time: Date) -> Bool {
        state.withLock { state in
            if let seen = state.seen[id], time.timeIntervalSince(seen) < lifetime { return false }
            state.seen[id] = time
            if state.seen.count >= state.sweepAt {
                let cutoff = time.addingTimeInterval(-lifetime)
                state.seen = state.seen.filter { $0.value > cutoff }
                state.sweepAt = max(1024, state.seen.count * 2)
            }
            return true
        }
    }
}
