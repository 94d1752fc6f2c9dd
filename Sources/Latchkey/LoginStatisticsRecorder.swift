import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The spec's `collectStatistics`: counts each login by method — attempts, successes, MFA prompts,
/// failures by code, latency — and sends them to the server in batches. The counts wait in the
/// SDK's storage (they survive a relaunch) until a batch is sent: after a login once
/// `LatchkeyContext.statisticsBatchSize` logins are waiting, or when the app calls
/// `LatchkeyClient.sendLoginStatistics()`.
actor LoginStatisticsRecorder {
    static let key = "latchkey.statistics"
    private let enabled: Bool
    private let batchSize: Int
    private let storage: any CredentialStorage
    private var pending: [LoginStatisticsMethod: LoginStatistics]?
    private var sending: Task<Int, any Error>?

    init(enabled: Bool, batchSize: Int, storage: any CredentialStorage) {
        self.enabled = enabled
        self.batchSize = max(batchSize, 1)
        self.storage = storage
    }

    /// Counts one login; answers whether a batch is due.
    func record(_ method: LoginStatisticsMethod, _ outcome: LoginStatisticsOutcome, latencyMilliseconds: Int) async -> Bool {
        guard enabled else { return false }
        var counts = await load()
        counts[method, default: LoginStatistics(method: method)].record(outcome, latencyMilliseconds: latencyMilliseconds)
        await save(counts)
        return counts.values.reduce(0) { $0 + $1.attempts } >= batchSize
    }

    /// The counts waiting to be sent, one per method.
    func waiting() async -> [LoginStatistics] {
        let counts = await load()
        return LoginStatisticsMethod.allCases.compactMap { counts[$0] }
    }

    /// Sends what is waiting with `submit` (one at a time: a second call waits for the first).
    /// What the server did not take stays waiting; a server that does not collect statistics
    /// (404) drops it. Answers how many logins the batch counted.
    func send(_ submit: @escaping @Sendable ([LoginStatistics]) async throws -> Void) async throws -> Int {
        if let sending { _ = try? await sending.value }
        let task = Task { try await self.sendWaiting(submit) }
        sending = task
        defer { sending = nil }
        return try await task.value
    }

    private func sendWaiting(_ submit: @Sendable ([LoginStatistics]) async throws -> Void) async throws -> Int {
        let batch = await waiting()
        guard !batch.isEmpty else { return 0 }
        await save([:])
        do {
            try await submit(batch)
        } catch let error as LatchkeyError where error.id == .notFound {
            return 0
        } catch {
            // Logins counted meanwhile are kept with the batch that did not go.
            var counts = await load()
            for entry in batch { counts[entry.method, default: LoginStatistics(method: entry.method)].add(entry) }
            await save(counts)
            throw error
        }
        return batch.reduce(0) { $0 + $1.attempts }
    }

    private func load() async -> [LoginStatisticsMethod: LoginStatistics] {
        if let pending { return pending }
        let stored = (try? await storage.data(for: Self.key)).flatMap { try? JSONDecoder().decode([LoginStatistics].self, from: $0) } ?? []
        let counts = Dictionary(stored.map { ($0.method, $0) }, uniquingKeysWith: { first, _ in first })
        pending = counts
        return counts
    }

    /// Statistics are not worth failing a login for: a write that fails keeps them in memory.
    private func save(_ counts: [LoginStatisticsMethod: LoginStatistics]) async {
        pending = counts
        let data = counts.isEmpty ? nil : try? JSONEncoder().encode(LoginStatisticsMethod.allCases.compactMap { counts[$0] })
        try? await storage.set(data, for: Self.key)
    }
}
