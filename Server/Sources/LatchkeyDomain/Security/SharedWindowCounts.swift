import Foundation
import Synchronization

/// The shared rate limits' counts as this replica last saw them, so a busy key needs a database
/// write per batch instead of per request: while a key's row is below half its limit, a replica
/// takes requests locally — a quarter of what is left of that half at a time, for at most
/// `maxAge` — then adds them to the row in one statement. In the second half every request goes
/// to the row, so the limit is exact where it binds: replicas together take at most half the limit
/// locally as long as there are at most four of them (more, or a view older than the others'
/// writes, can let a fraction of the limit pass within `maxAge`).
package final class SharedWindowCounts: Sendable {
    package struct Entry {
        package var windowStart: Date
        /// The row's count after this replica's last statement.
        package var known: Int
        /// Requests taken here since, not yet in the row.
        package var pending: Int
        package var syncedAt: Date
    }

    /// What a request for a key does.
    package enum Decision: Equatable {
        case allow
        case refuse(until: Date)
        /// Add `pending` earlier requests and this one to the row, and decide by its count.
        case write(pending: Int)
    }

    /// How long local counts are trusted before they go to the row.
    package static let maxAge: TimeInterval = 1
    /// Keys kept; past it, entries of ended windows are dropped.
    package static let capacity = 100_000
    private let entries = Mutex<[String: Entry]>([:])

    package func decide(_ key: String, limit: Int, window: TimeInterval, now: Date) -> Decision {
        entries.withLock { entries in
            guard var entry = entries[key], now < entry.windowStart.addingTimeInterval(window) else {
                return .write(pending: 0)
            }
            if entry.known >= limit { return .refuse(until: entry.windowStart.addingTimeInterval(window)) }
            if now.timeIntervalSince(entry.syncedAt) < Self.maxAge, entry.pending + 1 <= (limit / 2 - entry.known) / 4 {
                entry.pending += 1
                entries[key] = entry
                return .allow
            }
            let pending = entry.pending
            entry.pending = 0
            entries[key] = entry
            return .write(pending: pending)
        }
    }

    /// The row's state after a write.
    package func record(_ key: String, count: Int, windowStart: Date, now: Date, window: TimeInterval) {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[key] == nil {
                entries = entries.filter { now < $0.value.windowStart.addingTimeInterval(window) }
                if entries.count >= Self.capacity { return }
            }
            let pending = entries[key].map { $0.windowStart == windowStart ? $0.pending : 0 } ?? 0
            entries[key] = Entry(windowStart: windowStart, known: count, pending: pending, syncedAt: now)
        }
    }

    /// A write that failed: its requests were not counted; they are given back to the next one.
    package func restore(_ key: String, pending: Int) {
        entries.withLock { entries in entries[key]?.pending += pending }
    }
}
