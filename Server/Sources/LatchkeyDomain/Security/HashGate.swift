import Foundation
import LatchkeyCore
import Synchronization
import Tracing

/// Admission to hash work. Hashing is the server's bottleneck by design (a memory-hard hash per
/// credential check); without a bound, a login storm queues hashes for clients that have long
/// given up and nobody gets in. An operation states how many hashes it will run before it moves
/// any counter; when the hashes already admitted would make it wait longer than
/// `hashing.maxQueueMilliseconds` (less a fifth for its other work), it is refused at once
/// (503 `overloaded`, `Retry-After`).
/// Unknown and known users cost the same here: the unknown-user burn is one hash like a check.
public final class HashGate: Sendable {
    /// Threads that hash at once (the thread pool's).
    package let workers: Int
    /// The longest expected wait an operation is admitted with.
    package let maxWait: Double
    private let state = Mutex(State())

    private struct State {
        /// Hashes admitted or running and not finished.
        var pending = 0
        /// Seconds one hash takes (moving average); nil until one was measured.
        var hashSeconds: Double?
        /// Hashes run to the end since the start.
        var completed = 0
        /// Operations refused (shed) since the dashboard's counter last took them.
        var shed = 0
    }

    /// The operations shed since the last call (`ShedRecorder` adds them to the dashboard's counts).
    public func takeShed() -> Int {
        state.withLock { state in
            defer { state.shed = 0 }
            return state.shed
        }
    }

    /// How many hashes ran to the end since the server started: the work a call did, as tests and
    /// operators see it (an answer that must not tell a held address from a free one costs the same).
    public var completedHashes: Int { state.withLock { $0.completed } }

    public init(workers: Int, maxQueueMilliseconds: Int) {
        self.workers = max(1, workers)
        self.maxWait = Double(maxQueueMilliseconds) / 1000
    }

    /// The share of the limit left for an operation's other work (its database calls, the
    /// network) and for the estimate's error: the time of one hash is a moving average of hashes
    /// that ran before, so under a storm, whose own refusals take CPU from the hashes, the
    /// admitted hashes finish later than estimated. Admitted at an expected wait of 90 % of the
    /// limit, logins of an external storm (Scripts/bench-storm, 160 clients) finished at p99 up
    /// to 2.06 s for a limit of 2 s; a fifth leaves room for that, and the hashes admitted (about
    /// eight per core at the default limit) still keep every hashing thread busy.
    package static let otherWork = 0.2

    /// The operation's admission for the hashes it will run for a client on `connection`, handed
    /// to `body`; what it did not use is given back at the end.
    /// Throws `DomainError(.overloaded)` with the expected wait as `retryAfter`.
    package func admitted<T>(_ units: Int, connection: (any ClientConnection)?, reserved: Ticket? = nil,
                             _ body: (Ticket) async throws -> T) async throws -> T {
        if let reserved, reserved.isOpen {
            // The edge admitted the operation's fewest hashes; only what this call needs beyond them
            // is admitted here (the edge gives back what is left when the request ends).
            let missing = units - reserved.remainingUnits
            if missing > 0 { try extend(reserved, by: missing) }
            return try await body(reserved)
        }
        let ticket = try admit(units, connection: connection)
        defer { release(ticket.close()) }
        return try await body(ticket)
    }

    /// Admits `units` hashes for an operation before anything of its request is verified or
    /// written (`EdgeMiddleware`): a refusal costs no proof check and no database write. Nil for
    /// an operation that hashes nothing. `end(_:)` gives back what was not used.
    /// - Throws: `DomainError(.overloaded)` with the expected wait as `retryAfter`.
    package func reserve(_ units: Int, connection: (any ClientConnection)?) throws -> Ticket? {
        units > 0 ? try admit(units, connection: connection) : nil
    }

    /// Ends a reservation: the hashes it did not run are given back.
    package func end(_ ticket: Ticket?) {
        if let ticket { release(ticket.close()) }
    }

    private func extend(_ ticket: Ticket, by units: Int) throws {
        try state.withLock { state in
            let wait = Self.wait(units: units, pending: state.pending, workers: workers, hashSeconds: state.hashSeconds)
            if wait > maxWait * (1 - Self.otherWork) {
                state.shed += 1
                throw DomainError(.overloaded, retryAfter: max(1, Int(wait.rounded(.up))))
            }
            // Counted only if the ticket is still open (a closed one is never reopened).
            if ticket.add(units) { state.pending += units }
        }
    }

    /// Runs one hash's `work`: counted (a unit of `ticket`, or an extra one that is never refused,
    /// like a hash upgrade or a hash outside any admission), skipped (`CancellationError`) when the
    /// ticket's client has left (`ClientPresence`) or the task was cancelled, before or while it
    /// waited for a thread, and timed for the estimate.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T, ticket: Ticket?,
                          on pool: (@escaping @Sendable () throws -> (T, Double)) async throws -> (T, Double))
        async throws -> T {
        if !(ticket?.take() ?? false) { state.withLock { $0.pending += 1 } }
        let cancelled = Atomic(false)
        // The wait for a thread and the hash are spans of their own (the hash runs off the task,
        // so its span's parent is taken here).
        let parent = ServiceContext.current
        let waiting = Telemetry.start("hash.wait")
        // Ended once: by the pool's thread when the hash starts, or here if it never does (the
        // two can race when the wait is cancelled, and an exporter may not guard a second end).
        let waitEnded = Atomic(false)
        let endWait: @Sendable () -> Void = {
            if waitEnded.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged { waiting?.end() }
        }
        defer { endWait() }
        do {
            let client = await ticket?.connection?.presence()
            if client?.isGone == true { throw CancellationError() }
            let (value, seconds) = try await withTaskCancellationHandler {
                try await pool {
                    endWait()
                    // Checked when a thread is free for it: the client may have left while it waited.
                    if cancelled.load(ordering: .relaxed) || client?.isGone == true { throw CancellationError() }
                    let hashing = Telemetry.start("hash", parent: parent)
                    defer { hashing?.end() }
                    let start = ContinuousClock.now
                    let value = try work()
                    let elapsed = ContinuousClock.now - start
                    return (value, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                }
            } onCancel: { cancelled.store(true, ordering: .relaxed) }
            finish(seconds: seconds)
            return value
        } catch {
            finish(seconds: nil)
            throw error
        }
    }

    private func admit(_ units: Int, connection: (any ClientConnection)?) throws -> Ticket {
        try state.withLock { state in
            let wait = Self.wait(units: units, pending: state.pending, workers: workers, hashSeconds: state.hashSeconds)
            if wait > maxWait * (1 - Self.otherWork) {
                state.shed += 1
                throw DomainError(.overloaded, retryAfter: max(1, Int(wait.rounded(.up))))
            }
            state.pending += units
            return Ticket(units: units, connection: connection)
        }
    }

    private func release(_ unused: Int) {
        if unused > 0 { state.withLock { $0.pending -= unused } }
    }

    private func finish(seconds: Double?) {
        state.withLock { state in
            state.pending -= 1
            if seconds != nil { state.completed += 1 }
            if let seconds { state.hashSeconds = state.hashSeconds.map { $0 * 0.8 + seconds * 0.2 } ?? seconds }
        }
    }

    /// When the last of `units` new hashes would finish: the hashes ahead run `workers` at a time,
    /// then the new ones. What the caller waits for, so it is what the limit bounds.
    package static func wait(units: Int, pending: Int, workers: Int, hashSeconds: Double?) -> Double {
        guard let hashSeconds else { return 0 }
        return Double((pending + max(units, 1) - 1) / workers + 1) * hashSeconds
    }

    /// The hashes an operation was admitted for and has not run yet, and the connection of the
    /// client they are for.
    package final class Ticket: Sendable {
        private let remaining: Mutex<Int>
        package let connection: (any ClientConnection)?
        package init(units: Int, connection: (any ClientConnection)?) {
            remaining = Mutex(units)
            self.connection = connection
        }

        /// Uses one admitted hash; false when none is left or the admission ended (the hash counts
        /// on its own).
        package func take() -> Bool {
            remaining.withLock { remaining in
                guard remaining > 0 else { return false }
                remaining -= 1
                return true
            }
        }

        /// Ends the admission; answers the units it did not use.
        package func close() -> Int {
            remaining.withLock { remaining in
                defer { remaining = -1 }
                return max(0, remaining)
            }
        }

        /// Whether the admission has not ended.
        package var isOpen: Bool { remaining.withLock { $0 >= 0 } }

        /// The admitted hashes not run yet.
        package var remainingUnits: Int { remaining.withLock { max(0, $0) } }

        /// Adds admitted units to an open ticket; false (and nothing added) once it ended.
        fileprivate func add(_ units: Int) -> Bool {
            remaining.withLock { remaining in
                guard remaining >= 0 else { return false }
                remaining += units
                return true
            }
        }
    }
}
