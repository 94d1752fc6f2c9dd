import Foundation
import LatchkeyDomain

extension SQLStore {
    /// The column that orders users as they were stored, strictly increasing (migration 20):
    /// SQLite's rowid (a new row's is above every existing row's), PostgreSQL's `seq` (a sequence).
    package static func userPosition(_ engine: DatabaseEngine) -> String { engine == .postgres ? "seq" : "rowid" }

    public func users(issuer: String, state: UserStateFilter?, after cursor: UserPageCursor?, limit: Int) async throws -> [UserRecord] {
        let position = Self.userPosition(engine.kind)
        var sql = "SELECT * FROM users WHERE issuer = $1"
        var binds: [SQLValue] = [.text(issuer)]
        sql += Self.stateCondition(state)
        if let cursor {
            // Below the position of the previous page's last user: a user stored since has a
            // higher one, so it never moves a page however its creation time and id compare.
            // When that user is gone (erased), below the newest user created before it.
            sql += """
                 AND \(position) < COALESCE((SELECT \(position) FROM users WHERE id = $3 AND issuer = $1),
                    (SELECT \(position) + 1 FROM users WHERE issuer = $1 AND (created_at, id) < ($2, $3)
                     ORDER BY created_at DESC, id DESC LIMIT 1), 0)
                """
            binds += [cursor.createdAt.epochSeconds, .text(cursor.id)]
        }
        binds.append(.integer(Int64(limit)))
        sql += " ORDER BY \(position) DESC LIMIT $\(binds.count)"
        return try await engine.read(sql, binds).map { try UserRecord(row: $0) }
    }

    public func users(issuer: String, emailPrefix: String, state: UserStateFilter?, afterEmail: String?,
                      limit: Int) async throws -> [UserRecord] {
        // Byte order on both engines (PostgreSQL's "C" collation, SQLite's BINARY), so the range
        // [prefix, prefix + U+10FFFF) is exactly the addresses that start with the prefix, read
        // from an index in that order (migration 16).
        let collate = engine.kind == .postgres ? " COLLATE \"C\"" : ""
        var sql = "SELECT * FROM users WHERE issuer = $1 AND email_normalized\(collate) >= $2 AND email_normalized\(collate) < $3"
        var binds: [SQLValue] = [.text(issuer), .text(emailPrefix), .text(emailPrefix + "\u{10FFFF}")]
        if let afterEmail {
            binds.append(.text(afterEmail))
            sql += " AND email_normalized\(collate) > $\(binds.count)"
        }
        sql += Self.stateCondition(state)
        binds.append(.integer(Int64(limit)))
        sql += " ORDER BY email_normalized\(collate) LIMIT $\(binds.count)"
        return try await engine.read(sql, binds).map { try UserRecord(row: $0) }
    }

    static func stateCondition(_ state: UserStateFilter?) -> String {
        switch state {
        case .active: " AND status = 'active' AND locked = 0"
        case .locked: " AND locked = 1"
        case .deactivated: " AND status <> 'active'"
        case .unverified: " AND email_verified = 0"
        case nil: ""
        }
    }

    public func users(issuer: String, externalID: String, state: UserStateFilter?, limit: Int) async throws -> [UserRecord] {
        try await engine.read("""
            SELECT * FROM users WHERE issuer = $1 AND external_id = $2\(Self.stateCondition(state))
            ORDER BY created_at DESC, id DESC LIMIT $3
            """, [.text(issuer), .text(externalID), .integer(Int64(limit))]).map { try UserRecord(row: $0) }
    }

    public func liveDeviceTokens(userID: String, now: Date, limit: Int) async throws -> [DeviceTokenRecord] {
        try await engine.read("""
            SELECT * FROM device_tokens WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2
            ORDER BY expires_at DESC, digest DESC LIMIT $3
            """, [.text(userID), now.epochSeconds, .integer(Int64(limit))]).map { try DeviceTokenRecord(row: $0) }
    }

    public func newestCertificates(userID: String, limit: Int) async throws -> [String: DeviceCertificateRecord] {
        var newest: [String: DeviceCertificateRecord] = [:]
        for row in try await engine.read("""
            SELECT * FROM device_certificates WHERE user_id = $1
            ORDER BY created_at DESC, CASE WHEN revoked_at IS NULL THEN 0 ELSE 1 END, serial DESC LIMIT $2
            """, [.text(userID), .integer(Int64(limit))]) {
            let certificate = try DeviceCertificateRecord(row: row)
            if newest[certificate.deviceID] == nil { newest[certificate.deviceID] = certificate }
        }
        return newest
    }

    public func liveSessions(userID: String, now: Date, idleBefore: Date, limit: Int) async throws -> [SessionRecord] {
        try await engine.read("""
            SELECT * FROM sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND last_seen_at > $3
            ORDER BY last_seen_at DESC, digest DESC LIMIT $4
            """, [.text(userID), now.epochSeconds, idleBefore.epochSeconds, .integer(Int64(limit))]).map { try SessionRecord(row: $0) }
    }

    public func unlockUser(userID: String, limits: AttemptLimits, now: Date) async throws -> (wallet: Bool, devices: [String]) {
        try await engine.transaction { db in
            let wallet = try await !db.query("""
                UPDATE users SET status = 'active' WHERE id = $1 AND status = 'deactivated' AND failed_attempts >= $2 RETURNING id
                """, [.text(userID), .integer(Int64(limits.wallet))]).isEmpty
            try await db.execute("UPDATE users SET locked = 0, failed_attempts = 0 WHERE id = $1", [.text(userID)])
            let devices = try await db.query("""
                UPDATE devices SET status = 'active', failed_attempts = 0
                WHERE user_id = $1 AND status = 'deactivated' AND failed_attempts >= $2 RETURNING device_id
                """, [.text(userID), .integer(Int64(limits.device))]).map { try $0.string("device_id") }
            try await Self.clearUnlinkedAttempts(userID: userID, in: db)
            // The reactivations are status changes like any other (`wallet.status`, `device.status`).
            if wallet { db.audit?.record(.walletStatusChanged, user: userID, reason: .status(UserStatus.active), at: now) }
            for device in devices.sorted() {
                db.audit?.record(.deviceStatusChanged, user: userID, reason: .status(DeviceStatus.active), deviceID: device, at: now)
            }
            return (wallet, devices.sorted())
        }
    }

    public func endUserSessions(userID: String, now: Date) async throws {
        sessions.remove(userID: userID, deviceID: nil)
        try await engine.transaction { db in
            try await Self.revokeSessions(userID: userID, except: nil, deviceID: nil, now: now, in: db)
            try await Self.revokeDeviceTokens(userID: userID, now: now, in: db)
        }
        // Again after the update: a check that missed the cache in between may have cached the row.
        sessions.remove(userID: userID, deviceID: nil)
    }

    public func unlinkedLockout(userID: String, now: Date) async throws -> Date? {
        try await engine.read("SELECT locked_until FROM unlinked_attempts WHERE user_id = $1 AND locked_until > $2",
                              [.text(userID), now.epochSeconds]).first.map { try $0.date("locked_until") }
    }
}

extension SQLStore {
    /// The smallest id of an event at or after `date` (to the microsecond, as `AuditEvent.newID`
    /// writes them); dates past the ids' 16 digits (the year 2286) bound like the last one.
    static func idBound(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let micros = seconds.isNaN || seconds <= 0 ? 0 : seconds >= 9_999_999_999 ? 9_999_999_999_000_000 : UInt64(seconds * 1_000_000)
        let digits = String(micros)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    public func auditEvents(matching filter: AuditEventFilter, before id: String?,
                            scan: Int) async throws -> (events: [AuditEvent], lastRead: String?) {
        let (sql, binds) = Self.eventsStatement(filter, before: id, scan: scan, engine: engine.kind)
        let read = try await engine.read(sql, binds).map { try AuditEvent(row: $0) }
        let events = read.filter { event in
            (filter.clientIP.map { event.clientIP == $0 } ?? true) && (filter.type.map { event.type == $0 } ?? true)
                && (filter.outcome.map { event.outcome == $0 } ?? true)
        }
        return (events, read.count == scan ? read.last?.id : nil)
    }

    /// The statement `auditEvents(matching:before:scan:)` reads with (the benchmark prints its plan).
    package static func eventsStatement(_ filter: AuditEventFilter, before id: String?, scan: Int,
                                        engine: DatabaseEngine) -> (String, [SQLValue]) {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        func add(_ condition: String, _ value: SQLValue) {
            binds.append(value)
            conditions.append(condition.replacingOccurrences(of: "?", with: "$\(binds.count)"))
        }
        // One condition drives the read, the most selective whose index ends in the id (the
        // user's, an address's, a type's, an outcome's: migrations 9 and 17; else the primary
        // key); the others filter the rows it read, so a page reads `scan` rows at most whatever
        // the filter combines (the time range is a range of ids, as `AuditEvent.newID` starts
        // with the time in microseconds, zero-padded).
        if let userID = filter.userID { add("user_id = ?", .text(userID)) }
        else if let clientIP = filter.clientIP { add("client_ip = ?", .text(clientIP)) }
        else if let type = filter.type { add("type = ?", .text(type.rawValue)) }
        else if let outcome = filter.outcome { add("outcome = ?", .text(outcome.rawValue)) }
        // Written as `audit_events_user_doings`' condition (migration 18), so both engines read that index.
        if filter.excludingReads { conditions.append("(reason IS NULL OR reason <> 'read')") }
        if let since = filter.since { add("id >= ?", .text(Self.idBound(since))) }
        if let until = filter.until { add("id < ?", .text(Self.idBound(until))) }
        if let id { add("id < ?", .text(id)) }
        // PostgreSQL's trail is partitioned by week of `occurred_at`: bounds on it let the planner
        // open only the weeks the time range or the cursor reach. Whole weeks (from the start of
        // the first to the end of the last, a second wider as an id's microseconds and the stored
        // second may round apart): a bound as narrow as the range would make the time index look
        // better than the id's, and an hour's page would read and sort the whole hour (measured:
        // 33 ms instead of under 1). SQLite's one table needs none.
        if engine == .postgres {
            // Seconds within the ids' range (`idBound`), so no date converts past Int64.
            func second(_ seconds: Double) -> Int64 { Int64(min(max(seconds.rounded(.down), 0), 9_999_999_999)) }
            if let since = filter.since {
                add("occurred_at >= ?", .integer(AuditPartitioning.weekStart(second(since.timeIntervalSince1970) - 1)))
            }
            let upper = [filter.until.map { $0.timeIntervalSince1970 }, id.flatMap(Self.idSeconds)].compactMap { $0 }.min()
            if let upper { add("occurred_at < ?", .integer(AuditPartitioning.weekStart(second(upper) + 1) + AuditPartitioning.week)) }
        }
        binds.append(.integer(Int64(scan)))
        let clause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return ("SELECT * FROM audit_events \(clause) ORDER BY id DESC LIMIT $\(binds.count)", binds)
    }
}
