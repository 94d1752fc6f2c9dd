import Logging
import ServiceLifecycle

/// The store in an application's service group: its background work (PostgreSQL's pool) runs for
/// the life of the application and stops after the HTTP server has drained (Hummingbird shuts its
/// own services down after the server, in reverse order). Whoever built the application closes the
/// store (`LatchkeyApplication.run`, `InProcessServer.stop`).
public struct StoreService: Service {
    let store: any LatchkeyStore

    public init(store: any LatchkeyStore) {
        self.store = store
    }

    public func run() async throws {
        await store.run()
    }
}

extension StoreFactory {
    /// Opens the store, runs its background work beside `body` (structured: it ends with it),
    /// migrates it when asked, and closes it however `body` ends. For commands and tests that use a
    /// store without an application.
    public static func withStore<T: Sendable>(_ url: String, logger: Logger, migrate: Bool = true,
                                              _ body: (any LatchkeyStore) async throws -> T) async throws -> T {
        let store = try await open(url, logger: logger)
        let result: Result<T, any Error> = await withTaskGroup(of: Void.self) { group in
            // Queries wait for the pool to run; waiting for the task to start keeps PostgresNIO
            // from warning that they came first.
            await withCheckedContinuation { started in
                group.addTask {
                    started.resume()
                    await store.run()
                }
            }
            let result: Result<T, any Error>
            do {
                if migrate { try await store.migrate() }
                result = .success(try await body(store))
            } catch {
                result = .failure(error)
            }
            group.cancelAll()
            return result
        }
        try await store.close()
        return try result.get()
    }
}
