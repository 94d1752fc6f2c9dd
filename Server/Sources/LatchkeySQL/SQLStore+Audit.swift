import Foundation
import LatchkeyDomain

/// The audit trail's table: rows are inserted, read and, past the retention, deleted (on
/// PostgreSQL by whole partitions, `SQLStore+AuditPartitions`); the database refuses any update
/// and any deletion of a row younger than a day (migration 9).
extension SQLStore {
    public func appendAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await engine.transaction { db in try await Self.insert(events, into: db) }
    }

    public func auditEvents(userID: String, limit: Int) async throws -> [AuditEvent] {
        try await engine.read("""
            SELECT * FROM (SELECT * FROM audit_events WHERE user_id = $1 ORDER BY id DESC LIMIT $2) AS latest ORDER BY id
            """, [.text(userID), .integer(Int64(limit))]).map { try AuditEvent(row: $0) }
    }

    public func auditEvents(after id: String?, since: Date?, limit: Int) async throws -> [AuditEvent] {
        // The week of the time the id starts with (a second before, for rounding) bounds
        // `occurred_at` too, so PostgreSQL reads only the weeks from there on (whole weeks: see
        // `eventsStatement`).
        let cursorWeek = id.flatMap(Self.idSeconds).map { Double(AuditPartitioning.weekStart(Int64($0) - 1)) } ?? 0
        let from = max((since ?? .distantPast).timeIntervalSince1970.rounded(.down), cursorWeek)
        return try await engine.read("""
            SELECT * FROM audit_events WHERE id > $1 AND occurred_at >= $2 ORDER BY id LIMIT $3
            """, [.text(id ?? ""), .integer(Int64(from)), .integer(Int64(limit))]).map { try AuditEvent(row: $0) }
    }

    /// The second an event id starts with (`AuditEvent.newID`: 16 digits of microseconds); nil
    /// for an id that does not start so.
    static func idSeconds(_ id: String) -> Double? {
        guard id.utf8.count >= 16, let micros = UInt64(id.prefix(16)) else { return nil }
        return Double(micros / 1_000_000)
    }

    public func purgeAuditEvents(before date: Date, limit: Int) async throws -> Int {
        // Whole weeks first, each in a transaction of its own: dropping one locks the whole trail
        // until its commit, so nothing else is done under that lock.
        var purged = 0
        var tables = ["audit_events"]
        if engine.kind == .postgres {
            while let dropped = try await Self.dropOldestAuditPartition(before: date, engine: engine) { purged += dropped }
            tables = try await Self.auditTablesPurgedByRow(engine: engine)
        }
        // Row by row, at most `limit` in this transaction, so SQLite's one writer is never held
        // long (the oldest first, by the time index); not bound by a request's timeout.
        return try await engine.transaction(.unbounded) { [tables, purged] db in
            // The dashboard's counts of those hours go with them.
            try await db.execute("DELETE FROM dashboard_hours WHERE hour < $1", [date.epochSeconds])
            var deleted = purged
            for table in tables {
                deleted += try await db.query("""
                    DELETE FROM \(table) WHERE (id, occurred_at) IN (
                        SELECT id, occurred_at FROM \(table) WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2) RETURNING id
                    """, [date.epochSeconds, .integer(Int64(limit))]).count
            }
            return deleted
        }
    }

    /// Inserts `events` with as few statements as possible (an import records one per user).
    package static func insert(_ events: [AuditEvent], into db: any SQLExecutor) async throws {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder.sorted
        var encoded: [[String: String]: String] = [:]
        let rows = try events.map { event in
            let details = try encoded[event.details] ?? {
                let text = event.details.isEmpty ? "{}" : String(decoding: try encoder.encode(event.details), as: UTF8.self)
                encoded[event.details] = text
                return text
            }()
            return [.text(event.id), event.occurredAt.epochSeconds, .text(event.type.rawValue), .text(event.outcome.rawValue),
                    event.userID.sql, .text(event.actor.rawValue), event.reason.sql, event.deviceID.sql, event.clientIP.sql,
                    .text(details)] as [SQLValue]
        }
        try await db.insert(into: "audit_events", columns: ["id", "occurred_at", "type", "outcome", "user_id", "actor", "reason",
                                                            "device_id", "client_ip", "details"], rows: rows)
    }
}

extension JSONEncoder {
    /// Keys sorted, so equal values encode equally.
    package static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension AuditEvent {
    package init(row: SQLRow) throws {
        let details = try row.string("details")
        guard let decoded = try? JSONDecoder().decode([String: String].self, from: Data(details.utf8)) else {
            throw StoreError.undecodableRow(column: "details", reason: "not a JSON object of strings")
        }
        self.init(id: try row.string("id"), occurredAt: try row.date("occurred_at"), type: try row.value("type"),
                  outcome: try row.value("outcome"), userID: try row.optionalString("user_id"), actor: try row.value("actor"),
                  reason: try row.optionalString("reason"), deviceID: try row.optionalString("device_id"),
                  clientIP: try row.optionalString("client_ip"), details: decoded)
    }
}

extension SQLStore {
    public func recordSecretFingerprints(_ fingerprints: [String: String], now: Date) async throws -> [String: String] {
        try await engine.transaction { db in
            for (name, fingerprint) in fingerprints {
                try await db.execute("""
                    INSERT INTO secret_fingerprints (name, fingerprint, recorded_at) VALUES ($1, $2, $3)
                    ON CONFLICT (name) DO NOTHING
                    """, [.text(name), .text(fingerprint), now.epochSeconds])
            }
            return try Dictionary(uniqueKeysWithValues: try await db.query("SELECT name, fingerprint FROM secret_fingerprints", [])
                .map { (try $0.string("name"), try $0.string("fingerprint")) })
        }
    }

    public func rotateSecretFingerprint(name: String, from old: String, to new: String, now: Date) async throws -> Bool {
        try await !engine.query("""
            UPDATE secret_fingerprints SET fingerprint = $3, recorded_at = $4 WHERE name = $1 AND fingerprint = $2 RETURNING name
            """, [.text(name), .text(old), .text(new), now.epochSeconds]).isEmpty
    }
}
