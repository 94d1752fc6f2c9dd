import Foundation
import LatchkeyCore
import Synchronization

/// Brings an issuer's existing users in, whichever channel asks (the admin API's streamed body,
/// `latchkey users import`): runs the `UserImporter` one import at a time on a server, recorded by
/// the `OperatorTrail` before the first batch and, with the counts, at the end. Knows no HTTP.
public struct ImportAdministration: Sendable {
    package let importer: UserImporter
    package let trail: OperatorTrail
    package let now: @Sendable () -> Date
    let importSlot = ImportSlot()

    public init(importer: UserImporter, trail: OperatorTrail, now: @escaping @Sendable () -> Date = Date.init) {
        self.importer = importer
        self.trail = trail
        self.now = now
    }

    /// Whether an import runs on this server (its application: tests run several in one process).
    final class ImportSlot: Sendable {
        let running = Mutex(false)
    }

    /// The most failed lines an import's answer lists (the count covers them all).
    public static let failuresListed = 1000

    /// Imports users from JSON Lines (`UserImporter`), the lines read as they arrive; its
    /// `operator.command` event carries the counts. Answers the report and the first
    /// `failuresListed` failed lines. Throws `DomainError(.rateLimited)` while another import runs
    /// here, what reading `lines` throws, and what the database throws (the batches before stay
    /// written).
    public func importUsers(lines: some AsyncSequence<Substring, any Error>, update: Bool,
                            for call: OperatorCall) async throws -> (report: UserImporter.Report, failures: [UserImporter.Failure]) {
        var failures: [UserImporter.Failure] = []
        let report = try await importUsers(lines: lines, update: update, for: call, failure: { failure in
            if failures.count < Self.failuresListed { failures.append(failure) }
        })
        return (report, failures)
    }

    /// Imports users from JSON Lines, calling `failure` for each bad line and `progress` after
    /// each batch; its `operator.command` event carries the counts. Throws as
    /// `importUsers(lines:update:for:)`.
    public func importUsers(lines: some AsyncSequence<Substring, any Error>, update: Bool, for call: OperatorCall,
                            failure: (UserImporter.Failure) -> Void,
                            progress: (UserImporter.Report) -> Void = { _ in }) async throws -> UserImporter.Report {
        // One import at a time on a server: each holds two batches and hashes on every core.
        guard importSlot.running.withLock({ running in running ? false : { running = true; return true }() }) else {
            throw DomainError(.rateLimited, message: "An import is running on this server; try again when it has ended.", retryAfter: 60)
        }
        defer { importSlot.running.withLock { $0 = false } }
        // Written before the first batch, so a batch's writes are never without the operator that asked.
        try await trail.recorded(.importStarted, user: nil, call: call) {}
        return try await AuditTrail.run(actor: .operator, clientIP: call.clientIP, store: trail.store) { audit in
            var details = OperatorTrail.details(.admin(.importUsers), call)
            details["update"] = update ? "true" : "false"
            do {
                let report = try await importer.run(lines: lines, update: update, failure: failure, progress: progress)
                for (name, value) in [("lines", report.lines), ("created", report.created), ("updated", report.updated),
                                      ("skipped", report.skipped), ("failed", report.failed)] {
                    details[name] = String(value)
                }
                audit.record(.operatorCommand, user: nil, details: details, at: now())
                return report
            } catch {
                details["error"] = (error as? DomainError)?.id.rawValue ?? "interrupted"
                audit.record(.operatorCommand, user: nil, outcome: .failure, details: details, at: now())
                throw error
            }
        }
    }

    /// `importUsers(lines:update:for:failure:progress:)` of lines read one after the other (the
    /// command line's file).
    public func importUsers(lines: some Sequence<Substring>, update: Bool, for call: OperatorCall,
                            failure: (UserImporter.Failure) -> Void,
                            progress: (UserImporter.Report) -> Void = { _ in }) async throws -> UserImporter.Report {
        try await importUsers(lines: SyncLines(base: lines), update: update, for: call, failure: failure, progress: progress)
    }
}
