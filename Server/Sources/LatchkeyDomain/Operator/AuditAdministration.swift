import Foundation

/// What operators read of the audit trail, whichever channel asks: pages of events by filter (the
/// admin API, the console), a wallet's latest events and the whole trail in recording order (the
/// command line), and the retention's purge. Reads are recorded by the `OperatorTrail` as the admin
/// API records `listEvents`, and an export as `audit export`. Knows no HTTP.
public struct AuditAdministration: Sendable {
    public typealias Store = AuditStore & AdminAuditStore
    package let store: any Store
    package let trail: OperatorTrail
    package let now: @Sendable () -> Date

    public init(store: any Store, trail: OperatorTrail, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.trail = trail
        self.now = now
    }

    /// The audit trail of `store`, its reads recorded in its own trail (the command line's).
    public init(store: any Store & UserStore, issuer: IssuerSettings, now: @escaping @Sendable () -> Date = Date.init) {
        self.init(store: store, trail: OperatorTrail(store: store, issuer: issuer, now: now), now: now)
    }

    /// Events of the audit trail matching `filter`, newest first, before the event `before`; with
    /// the id to continue from when another page may follow. A page reads `limit + 1` events at
    /// most (`AdminAuditStore.auditEvents`): a filter that combines conditions may answer fewer
    /// than `limit`, even none, and a next page.
    public func events(_ filter: AuditEventFilter, before: String?, limit: Int,
                       for call: OperatorCall) async throws -> (events: [AuditEvent], next: String?) {
        try await trail.recorded(.admin(.listEvents), user: filter.userID, call: call) {
            // A page reads one event past it: with one condition every event read matches and
            // the one past says whether a page follows; combined conditions may leave a page
            // short (even empty) with a next page, which continues where the reading stopped.
            let (rows, lastRead) = try await store.auditEvents(matching: filter, before: before, scan: limit + 1)
            let page = Array(rows.prefix(limit))
            return (page, rows.count > limit ? page.last?.id : lastRead)
        }
    }

    /// The latest `limit` events of the wallet `reference` names, oldest first.
    /// Throws `DomainError(.unknownUser)`.
    public func latestEvents(of reference: OperatorTrail.UserReference, limit: Int, for call: OperatorCall) async throws -> [AuditEvent] {
        try await trail.recorded(.admin(.listEvents), user: reference, call: call) { user, _ in
            try await store.auditEvents(userID: user.id, limit: limit)
        }
    }

    /// Hands every event since `since` to `write`, in recording order, a page at a time. The
    /// export is itself recorded (`audit export`) before the first page, so it holds its own
    /// event. Answers how many events were written. Throws what `write` and the database throw.
    public func exportEvents(since: Date?, pageSize: Int = 1000, for call: OperatorCall,
                             _ write: ([AuditEvent]) throws -> Void) async throws -> Int {
        try await trail.recorded(.auditExport, user: nil, call: call) {}
        var (after, count): (String?, Int) = (nil, 0)
        while true {
            let page = try await store.auditEvents(after: after, since: since, limit: pageSize)
            guard let last = page.last else { return count }
            try write(page)
            count += page.count
            after = last.id
        }
    }

    /// Deletes the events older than the retention; answers how many (none when it is 0). Not
    /// itself an event: the server purges every hour too.
    public func purgeEvents(retentionDays: Int) async throws -> Int {
        try await Self.purge(store, retentionDays: retentionDays, now: now())
    }

    /// Events one purge transaction deletes one by one at most.
    public static let purgeBatch = 5_000

    /// Deletes `store`'s events older than `retentionDays` before `now` in transactions of
    /// `purgeBatch` rows at most (and whole partitions); answers how many (none when it is 0).
    public static func purge(_ store: any AuditStore, retentionDays: Int, now: Date) async throws -> Int {
        guard retentionDays > 0 else { return 0 }
        let cutoff = now.addingTimeInterval(-TimeInterval(retentionDays) * 86_400)
        var purged = 0, batch = 0
        repeat {
            batch = try await store.purgeAuditEvents(before: cutoff, limit: purgeBatch)
            purged += batch
        } while batch >= purgeBatch
        return purged
    }
}
