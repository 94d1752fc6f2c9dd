import Foundation
import LatchkeyAPI
import LatchkeyCore

/// The spec's `collectStatistics`: counts each login by method — successes, MFA prompts, failures
/// by code, latency — and sends them to the server in batches. The counts wait in the SDK's
/// storage (they survive a relaunch) until a batch is sent: after a login once
/// `LatchkeyContext.statisticsBatchSize` logins wait, or when the app calls
/// `LatchkeyClient.sendLoginStatistics()`. A batch keeps its id until the server took it, so a
/// batch whose answer was lost (or whose app was suspended) is sent again and counted once.
actor LoginStatisticsRecorder {
    static let key = "latchkey.statistics"

    /// What the storage keeps: the counts waiting, and the batch sent but not confirmed.
    struct Stored: Codable, Equatable {
        var waiting: [LoginStatistics] = []
        var inFlight: Batch?
    }

    struct Batch: Codable, Equatable {
        var id: String
        var statistics: [LoginStatistics]
        /// When it was made: a batch the server has not answered for 30 days (it keeps batch ids
        /// that long) is dropped rather than risk counting it twice.
        var createdAt: Date?
        var logins: Int { statistics.reduce(0) { LoginStatistics.sumCapped($0, $1.attempts) } }
    }

    private let enabled: Bool
    private let batchSize: Int
    private let storage: any CredentialStorage
    private var state: Stored?
    /// The send under way and its number, so a send only clears its own.
    private var sending: (number: Int, task: Task<Int, any Error>)?
    private var sends = 0

    init(enabled: Bool, batchSize: Int, storage: any CredentialStorage) {
        self.enabled = enabled
        self.batchSize = max(batchSize, 1)
        self.storage = storage
    }

    /// Counts one login; answers whether a batch is due.
    func record(_ method: LoginStatisticsMethod, _ outcome: LoginStatisticsOutcome, latencyMilliseconds: Int) async -> Bool {
        guard enabled else { return false }
        var stored = await load()
        var counts = Dictionary(stored.waiting.map { ($0.method, $0) }, uniquingKeysWith: { first, _ in first })
        counts[method, default: LoginStatistics(method: method)].record(outcome, latencyMilliseconds: latencyMilliseconds)
        stored.waiting = LoginStatisticsMethod.allCases.compactMap { counts[$0] }
        await save(stored)
        return stored.waiting.reduce(0) { LoginStatistics.sumCapped($0, $1.attempts) } >= batchSize
    }

    /// The counts waiting to be sent (with a batch sent but not confirmed), one per method.
    func waiting() async -> [LoginStatistics] {
        guard enabled else { return await forget() }
        let stored = await load()
        var counts = Dictionary(stored.waiting.map { ($0.method, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in stored.inFlight?.statistics ?? [] { counts[entry.method, default: LoginStatistics(method: entry.method)].add(entry) }
        return LoginStatisticsMethod.allCases.compactMap { counts[$0] }
    }

    /// Sends what waits with `submit(batch, id)`, one send at a time (a second call waits for the
    /// first, then sends what is left). A refusal of the batch itself (400, or 404: the server
    /// does not collect statistics) drops it; any other failure keeps it, with its id, for the
    /// next send. Answers how many logins the batch counted.
    func send(_ submit: @escaping @Sendable ([LoginStatistics], String) async throws -> Void) async throws -> Int {
        guard enabled else {
            _ = await forget()
            return 0
        }
        // Every send under way (a third caller may find a second) ends before this one starts.
        while let running = sending {
            _ = try? await running.task.value
            if sending?.number == running.number { sending = nil }
        }
        sends += 1
        let number = sends
        let task = Task { try await self.sendWaiting(submit) }
        sending = (number, task)
        defer { if sending?.number == number { sending = nil } }
        return try await task.value
    }

    private func sendWaiting(_ submit: @Sendable ([LoginStatistics], String) async throws -> Void) async throws -> Int {
        var stored = await load()
        if stored.inFlight == nil, !stored.waiting.isEmpty {
            // What goes keeps the schema's bounds, so the server takes it.
            stored.inFlight = Batch(id: UUID().uuidString, statistics: stored.waiting.map(\.clamped), createdAt: Date())
            stored.waiting = []
            await save(stored)
        }
        guard let batch = stored.inFlight else { return 0 }
        if let made = batch.createdAt, Date().timeIntervalSince(made) > 29 * 86_400 {
            await confirm(batch)
            return 0
        }
        do {
            try await submit(batch.statistics, batch.id)
        } catch let error as LatchkeyError where error.kind == .server && (error.code == 400 || error.id == .notFound) {
            await confirm(batch)
            return 0
        }
        await confirm(batch)
        return batch.logins
    }

    /// The server took (or refused for good) `batch`: it is no longer in flight.
    private func confirm(_ batch: Batch) async {
        var stored = await load()
        if stored.inFlight?.id == batch.id { stored.inFlight = nil }
        await save(stored)
    }

    /// With `collectStatistics` off nothing is kept: counts of an earlier launch are dropped.
    private func forget() async -> [LoginStatistics] {
        if state != Stored() {
            state = Stored()
            try? await storage.set(nil, for: Self.key)
        }
        return []
    }

    private func load() async -> Stored {
        if let state { return state }
        let read = (try? await storage.data(for: Self.key)).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) } ?? Stored()
        // Another call may have loaded (and changed) the state while this one read the storage.
        if let state { return state }
        state = read
        return read
    }

    /// Statistics are not worth failing a login for: a write that fails keeps them in memory.
    private func save(_ stored: Stored) async {
        state = stored
        let data = stored == Stored() ? nil : try? JSONEncoder().encode(stored)
        try? await storage.set(data, for: Self.key)
    }
}
