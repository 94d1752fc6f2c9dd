import Synchronization

/// The outcome of a database call that its caller and the call's own task both wait for: the
/// first to settle it (the call's result, or the caller giving up at its bound) decides it, and
/// every waiter gets it. A transaction about to commit claims the outcome first (`claimForCommit`),
/// so that a caller giving up then waits for the commit's answer instead of answering
/// `unavailable` for a transaction that commits.
final class StatementOutcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var committing = false
        var waiters: [Int: CheckedContinuation<Result<T, any Error>?, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextWaiter = 0
    }

    /// What a caller that gives up finds.
    enum GivingUp {
        /// The outcome is settled: the call's result, or the caller's own error.
        case settled(Result<T, any Error>)
        /// The transaction sent its commit before the caller gave up: its answer decides.
        case committing
    }

    private let state = Mutex(State())

    /// Settles the outcome with `result`, unless it is settled already; wakes every waiter.
    func finish(with result: Result<T, any Error>) {
        _ = settle(result, unlessCommitting: false)
    }

    /// The caller stops waiting with `error`: settles the outcome with it unless the call settled
    /// it first or a commit is under way, and says which.
    func giveUp(with error: any Error) -> GivingUp {
        settle(.failure(error), unlessCommitting: true)
    }

    /// The caller stops waiting for good: settles the outcome with `error` unless it is settled
    /// already, commit or not, and answers the settled result (the call's, if it came first).
    func abandon(with error: any Error) -> Result<T, any Error> {
        guard case .settled(let result) = settle(.failure(error), unlessCommitting: false) else { return .failure(error) }
        return result
    }

    /// The one way an outcome is settled: with `result` unless it is settled already (answered
    /// as it is) or, when `unlessCommitting`, a commit is under way; wakes every waiter.
    private func settle(_ result: Result<T, any Error>, unlessCommitting: Bool) -> GivingUp {
        let (decided, waiters) = state.withLock { state -> (GivingUp, [CheckedContinuation<Result<T, any Error>?, Never>]) in
            if let settled = state.result { return (.settled(settled), []) }
            if unlessCommitting, state.committing { return (.committing, []) }
            state.result = result
            defer { state.waiters = [:] }
            return (.settled(result), Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume(returning: result) }
        return decided
    }

    /// A transaction is about to send its commit: true if its caller still waits (the caller
    /// will then wait for the commit's answer), false if the caller gave up (the transaction
    /// must roll back).
    func claimForCommit() -> Bool {
        state.withLock { state in
            guard state.result == nil else { return false }
            state.committing = true
            return true
        }
    }

    /// The outcome once settled; nil if the waiting task is cancelled first.
    func settled() async -> Result<T, any Error>? {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = self.state.withLock { state -> Result<T, any Error>?? in
                    if let result = state.result { return .some(result) }
                    if state.cancelled.remove(id) != nil { return .some(nil) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil, state.result == nil { state.cancelled.insert(id) }
                return waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
