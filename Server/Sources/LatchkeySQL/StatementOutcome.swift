import Synchronization

/// The outcome of a statement that its caller and the statement's own task both wait for: the
/// first to settle it (the statement's result, or the caller giving up at its bound) decides it,
/// and every waiter gets it.
final class StatementOutcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiters: [Int: CheckedContinuation<Result<T, any Error>?, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Settles the outcome with `result`, unless it is settled already; wakes every waiter.
    func finish(with result: Result<T, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<T, any Error>?, Never>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: result) }
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
