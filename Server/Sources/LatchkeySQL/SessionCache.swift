import Foundation
import LatchkeyDomain
import Synchronization

/// Recently read sessions, so a session check is usually answered from memory. Every change this
/// process makes (touch, revoke) updates or drops the entry at once; a change made by another
/// process (a replica, the `latchkey users` command) is seen within `lifetime`.
package final class SessionCache: Sendable {
    private struct Entry {
        var session: SessionRecord
        var readAt: Date
    }

    package static let lifetime: TimeInterval = 1
    private static let capacity = 100_000
    private let entries = Mutex<[String: Entry]>([:])

    /// The cached session, if it was read within `lifetime` of `now`.
    package func session(_ digest: String, now: Date) -> SessionRecord? {
        entries.withLock { entries in
            guard let entry = entries[digest], now.timeIntervalSince(entry.readAt) < Self.lifetime,
                  now >= entry.readAt else { return nil }
            return entry.session
        }
    }

    package func store(_ session: SessionRecord, now: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[session.digest] = Entry(session: session, readAt: now)
        }
    }

    package func remove(_ digest: String) {
        _ = entries.withLock { $0.removeValue(forKey: digest) }
    }

    /// Drops the sessions of a user (of one device, when given).
    package func remove(userID: String, deviceID: String?) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.session.userID != userID || (deviceID != nil && $0.value.session.deviceID != deviceID) }
        }
    }
}
