import Foundation
import LatchkeyDomain
import Logging
import ServiceLifecycle
import Synchronization

/// The store in an application's service group: its background work (PostgreSQL's pool) runs for
/// the life of the application and stops after the HTTP server has drained (Hummingbird shuts its
/// own services down after the server, in reverse order). It migrates the schema as soon as the
/// pool runs and then opens `ready`, which the HTTP server and the courier wait for. Whoever
/// built the application closes the store (`LatchkeyApplication.run`, `InProcessServer.stop`).
public struct StoreService: Service {
    package let store: any LatchkeyStore
    package let logger: Logger
    /// How long audit events are kept (0: forever); older ones are deleted hourly (on
    /// PostgreSQL a week's partition once the whole week is older).
    package let auditRetentionDays: Int
    /// How long login statistics are kept (0: forever).
    package let statisticsRetentionDays: Int
    package let now: @Sendable () -> Date
    /// Opens once the schema is current; fails if migrating failed.
    public let ready = ReadinessGate()

    public init(store: any LatchkeyStore, logger: Logger, auditRetentionDays: Int = 0, statisticsRetentionDays: Int = 0,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.statisticsRetentionDays = statisticsRetentionDays
        self.store = store
        self.logger = logger
        self.auditRetentionDays = auditRetentionDays
        self.now = now
    }

    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            do {
                let applied = try await store.migrate()
                if !applied.isEmpty { logger.info("Applied migrations \(applied) on \(store.databaseEngine.rawValue)") }
                ready.open()
            } catch {
                ready.fail(error)
                throw error
            }
            if auditRetentionDays > 0 { group.addTask { await purgeAuditEvents() } }
            group.addTask { await prepareAuditPartitions() }
            group.addTask { await purgeExpiredRegistrations() }
            group.addTask { await purgeLoginStatistics() }
            try await group.waitForAll()
        }
    }

    /// Runs `work` a minute after the start and then every hour until the shutdown. Not at once:
    /// a server that stops right after starting (a refused secret, a test) must not be closing its
    /// database under the statement. A failure is logged and tried again the next hour.
    private func hourly(_ what: String, _ work: @escaping @Sendable () async throws -> Void) async {
        var pause = Duration.seconds(60)
        while true {
            let wait = pause
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch { return }
            pause = .seconds(3600)
            do { try await work() } catch { logger.warning("\(what) failed: \(error)") }
        }
    }

    /// Deletes the unverified registrations whose time ran out, in batches of a bounded statement
    /// each, so no call outlives `databaseTimeoutMilliseconds`.
    private func purgeExpiredRegistrations() async {
        await hourly("Deleting expired registrations") {
            var purged = 0, batch = 0
            repeat {
                batch = try await store.purgeExpiredRegistrations(now: now())
                purged += batch
            } while batch == SQLStore.purgeBatch
            if purged > 0 { logger.info("Deleted \(purged) unverified registrations that expired") }
        }
    }

    /// Applies the statistics' retention, in bounded batches.
    private func purgeLoginStatistics() async {
        await hourly("Deleting old login statistics") {
            let today = LoginStatisticsService.day(of: now())
            var purged = 0, batch = 0
            // Batch ids guard against a batch sent twice; an app keeps an unanswered batch until its
            // next send, so they are kept 30 days (the SDK drops a batch older than that).
            repeat { batch = try await store.purgeLoginStatisticsBatches(beforeDay: today - 30) } while batch >= SQLStore.purgeBatch
            guard statisticsRetentionDays > 0 else { return }
            repeat {
                batch = try await store.purgeLoginStatistics(beforeDay: today - statisticsRetentionDays)
                purged += batch
            } while batch >= SQLStore.purgeBatch
            if purged > 0 { logger.info("Deleted \(purged) rows of login statistics older than \(statisticsRetentionDays) days") }
        }
    }

    /// Applies the audit retention, in bounded batches (and whole partitions on PostgreSQL).
    private func purgeAuditEvents() async {
        await hourly("Deleting old audit events") {
            let purged = try await AuditAdministration.purge(store, retentionDays: auditRetentionDays, now: now())
            if purged > 0 { logger.info("Deleted \(purged) audit events older than \(auditRetentionDays) days") }
        }
    }

    /// Keeps the trail's weeks made four ahead (PostgreSQL: `AuditPartitioning`), so events
    /// land in their week, not in the default partition. Every replica does it; they take turns
    /// and the second finds the weeks made.
    private func prepareAuditPartitions() async {
        await hourly("Making the audit trail's partitions") {
            let start = now()
            let made = try await store.prepareAuditPartitions(
                from: start, through: start.addingTimeInterval(TimeInterval(AuditPartitioning.weeksAhead * AuditPartitioning.week)))
            if made > 0 { logger.info("Made \(made) weekly partitions of the audit trail") }
        }
    }
}

extension StoreFactory {
    /// Opens the store, runs its background work beside `body` (structured: it ends with it),
    /// migrates it when asked, and closes it however `body` ends. For commands and tests that use a
    /// store without an application. `timeout` bounds each PostgreSQL call (a bulk command's
    /// transactions take longer than a request's).
    public static func withStore<T: Sendable>(_ url: String, logger: Logger, migrate: Bool = true, timeout: Duration = .seconds(1),
                                              _ body: (any LatchkeyStore) async throws -> T) async throws -> T {
        let store = try await open(url, logger: logger, timeout: timeout)
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
