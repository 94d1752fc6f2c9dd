import Foundation
import ServiceLifecycle

/// Adds the requests the admission gate shed to the dashboard's hourly counts in the database
/// (`window_counters`, a row per hour that all replicas add to): counted in memory and written
/// every `interval`, so an overload costs one write per replica per interval, not one a request.
public struct ShedRecorder: Service {
    let gate: HashGate
    let store: any WindowCounterStore
    let now: @Sendable () -> Date
    let interval: Duration
    /// The counters' key before the hour (`dashboard-shed:<seconds of the hour's start>`).
    public static let keyPrefix = "dashboard-shed:"
    /// A row lives past the dashboard's week.
    static let lifetime: TimeInterval = 8 * 86_400

    public init(gate: HashGate, store: any WindowCounterStore, now: @escaping @Sendable () -> Date, interval: Duration = .seconds(10)) {
        self.gate = gate
        self.store = store
        self.now = now
        self.interval = interval
    }

    /// Flushes every `interval` until the shutdown, then once more. The wait ends when the
    /// shutdown begins, so an idle server is not held for the rest of an interval.
    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            try? await flush()
        }
        try? await flush()
    }

    /// Writes what was shed since the last flush.
    public func flush() async throws {
        let count = gate.takeShed()
        guard count > 0 else { return }
        let time = now()
        let hour = Int(time.timeIntervalSince1970 / 3600) * 3600
        _ = try await store.add(Self.keyPrefix + String(hour), count: count, window: Self.lifetime, now: time)
    }
}
