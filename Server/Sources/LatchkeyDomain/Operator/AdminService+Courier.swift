import Foundation
import LatchkeyCore
import Synchronization

/// The admin API's reads and writes beyond one wallet: the courier's messages, the import.
extension AdminService {
    /// The courier's messages in `state`, newest first, after `cursor`, with the cursor of the
    /// next page when there is one. The sealed bodies never leave the store's rows here.
    public func messages(state: CourierMessageState?, after cursor: MessagePageCursor?, limit: Int,
                         for call: OperatorCall) async throws -> (messages: [OutboxMessage], next: MessagePageCursor?) {
        try await recorded(.admin(.listCourierMessages), user: nil, call: call) {
            let rows = try await store.outboxMessages(state: state, after: cursor, limit: limit + 1)
            let page = Array(rows.prefix(limit)).map { message in
                var message = message
                message.sealedPayload = nil
                return message
            }
            let next = rows.count > limit ? page.last.map { MessagePageCursor(createdAt: $0.createdAt, id: $0.id) } : nil
            return (page, next)
        }
    }

    /// The dashboard's counts by `bucket` seconds from `since` (`ConsoleStore.dashboardCounts`).
    public func dashboard(since: Date, bucket: Int, for call: OperatorCall) async throws -> [DashboardBucket] {
        try await store.dashboardCounts(since: since, bucket: bucket, now: now())
    }

    /// Whether an import runs on this server (its application: tests run several in one process).
    final class ImportSlot: Sendable {
        let running = Mutex(false)
    }

    /// The most failed lines an import's answer lists (the count covers them all).
    public static let failuresListed = 1000

    /// Imports users from JSON Lines as `latchkey users import` does (`UserImporter`), the lines
    /// read as they arrive; its `operator.command` event carries the counts. Answers the report
    /// and the first `failuresListed` failed lines. Throws what reading `lines` throws, and what
    /// the database throws (the batches before stay written).
    public func importUsers(lines: some AsyncSequence<Substring, any Error>, update: Bool,
                            for call: OperatorCall) async throws -> (report: UserImporter.Report, failures: [UserImporter.Failure]) {
        // One import at a time on a server: each holds two batches and hashes on every core.
        guard importSlot.running.withLock({ running in running ? false : { running = true; return true }() }) else {
            throw DomainError(.rateLimited, message: "An import is running on this server; try again when it has ended.", retryAfter: 60)
        }
        defer { importSlot.running.withLock { $0 = false } }
        // Written before the first batch, so a batch's writes are never without the key that asked.
        try await recorded(.importStarted, user: nil, call: call) {}
        return try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: store) { trail in
            var failures: [UserImporter.Failure] = []
            var details = Self.details(.admin(.importUsers), call)
            details["update"] = update ? "true" : "false"
            do {
                let report = try await importer.run(lines: lines, update: update, failure: { failure in
                    if failures.count < Self.failuresListed { failures.append(failure) }
                }, progress: { _ in })
                for (name, value) in [("lines", report.lines), ("created", report.created), ("updated", report.updated),
                                      ("skipped", report.skipped), ("failed", report.failed)] {
                    details[name] = String(value)
                }
                trail.record(.operatorCommand, user: nil, details: details, at: now())
                return (report, failures)
            } catch {
                details["error"] = (error as? DomainError)?.id.rawValue ?? "interrupted"
                trail.record(.operatorCommand, user: nil, outcome: .failure, details: details, at: now())
                throw error
            }
        }
    }
}
