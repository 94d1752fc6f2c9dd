import LatchkeyDomain
/// A FIFO lock for async code: one holder at a time, waiters resumed in order.
package actor AsyncSerialLock {
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package func lock() async {
        if !locked {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    package func unlock() {
        if waiters.isEmpty { locked = false } else { waiters.removeFirst().resume() }
    }

    /// Runs `body` while holding the lock.
    package nonisolated func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await lock()
        do {
            let result = try await body()
            await unlock()
            return result
        } catch {
            await unlock()
            throw error
        }
    }
}
