import Foundation

/// The audit trail for operators: a wallet's events, the whole trail in order, and the retention.
extension OperatorService {
    /// The latest `limit` events of the wallet with this address, oldest first.
    /// Throws `OperatorError.unknownUser`.
    public func events(email: String, limit: Int) async throws -> [AuditEvent] {
        try await store.auditEvents(userID: try await user(email: email).id, limit: limit)
    }

    /// Hands every event since `since` to `write`, in recording order, a page at a time.
    /// The export is itself recorded. Answers how many events were written.
    public func exportEvents(since: Date?, pageSize: Int = 1000, _ write: ([AuditEvent]) throws -> Void) async throws -> Int {
        try await audited(.auditExport, user: nil) { _ in }
        var (after, count): (String?, Int) = (nil, 0)
        while true {
            let page = try await store.auditEvents(after: after, since: since, limit: pageSize)
            guard let last = page.last else { return count }
            try write(page)
            count += page.count
            after = last.id
        }
    }

    /// Deletes the events older than the retention; answers how many (none when it is 0).
    public func purgeEvents(retentionDays: Int) async throws -> Int {
        guard retentionDays > 0 else { return 0 }
        return try await store.purgeAuditEvents(before: now().addingTimeInterval(-TimeInterval(retentionDays) * 86_400))
    }
}
