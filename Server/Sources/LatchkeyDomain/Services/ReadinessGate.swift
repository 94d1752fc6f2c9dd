import Synchronization

/// A one-shot gate: `wait` returns once `open` was called (at once after it), or throws what
/// `fail` was given.
public final class ReadinessGate: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, any Error>])
        case open
        case failed(any Error)
    }
    private let state = Mutex(State.waiting([]))

    public init() {}

    public func wait() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let now: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return nil
                case .open: return .success(())
                case .failed(let error): return .failure(error)
                }
            }
            if let now { continuation.resume(with: now) }
        }
    }

    package func open() { settle(.success(())) }

    package func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ result: Result<Void, any Error>) {
        let waiters: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            guard case .waiting(let waiters) = state else { return [] }
            switch result {
            case .success: state = .open
            case .failure(let error): state = .failed(error)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
