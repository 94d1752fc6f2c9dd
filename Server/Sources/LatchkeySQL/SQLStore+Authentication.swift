import Foundation
import LatchkeyDomain

/// Transactions that touch a device and its user lock the device row first, then the user row, so
/// concurrent logins never wait on each other in a cycle.
extension SQLStore {
    public func reserveAttempt(userID: String, deviceID: String?, limits: AttemptLimits) async throws -> AttemptReservation {
        do {
            return try await reserve(userID: userID, deviceID: deviceID, limits: limits)
        } catch ReservationRefused.wallet {
            let status: UserStatus? = try await engine.read("SELECT status FROM users WHERE id = $1", [.text(userID)])
                .first.map { try $0.value("status") }
            return status == .active ? .exhausted : .walletLocked
        }
    }

    /// Reserves on the device, then on the wallet; a refused wallet rolls the device back.
    private func reserve(userID: String, deviceID: String?, limits: AttemptLimits) async throws -> AttemptReservation {
        try await engine.transaction { db in
            if let deviceID, let device = try await db.query(
                "SELECT status FROM devices WHERE user_id = $1 AND device_id = $2", [.text(userID), .text(deviceID)]).first {
                let status: DeviceStatus = try device.value("status")
                if status == .suspended { return .deviceSuspended }
                let reserved = try await db.query("""
                    UPDATE devices SET failed_attempts = failed_attempts + 1
                    WHERE user_id = $1 AND device_id = $2 AND status = 'active' AND failed_attempts < $3 RETURNING failed_attempts
                    """, [.text(userID), .text(deviceID), .integer(Int64(limits.device))])
                if reserved.isEmpty { return status == .active ? .exhausted : .deviceLocked }
            }
            let reserved = try await db.query("""
                UPDATE users SET failed_attempts = failed_attempts + 1
                WHERE id = $1 AND status = 'active' AND failed_attempts < $2 RETURNING failed_attempts
                """, [.text(userID), .integer(Int64(limits.wallet))])
            if reserved.isEmpty { throw ReservationRefused.wallet }
            return .reserved
        }
    }

    private enum ReservationRefused: Error { case wallet }

    /// A deactivation ends the sessions of what it deactivates in the same transaction.
    public func recordFailure(userID: String, deviceID: String?, limits: AttemptLimits, now: Date) async throws -> FailureOutcome {
        let outcome = try await engine.transaction { db in
            var device: [SQLRow] = []
            if let deviceID {
                device = try await db.query("""
                    UPDATE devices SET status = 'deactivated'
                    WHERE user_id = $1 AND device_id = $2 AND status = 'active' AND failed_attempts >= $3 RETURNING user_id
                    """, [.text(userID), .text(deviceID), .integer(Int64(limits.device))])
            }
            let wallet = try await db.query("""
                UPDATE users SET status = 'deactivated' WHERE id = $1 AND status = 'active' AND failed_attempts >= $2 RETURNING id
                """, [.text(userID), .integer(Int64(limits.wallet))])
            // The lockouts are audit events of the transaction that decides them.
            if !device.isEmpty { db.audit?.record(.deviceLocked, user: userID, deviceID: deviceID, at: now) }
            if !wallet.isEmpty { db.audit?.record(.walletLocked, user: userID, deviceID: deviceID, at: now) }
            if !wallet.isEmpty {
                try await Self.revokeSessions(userID: userID, except: nil, deviceID: nil, now: now, in: db)
            } else if !device.isEmpty {
                try await Self.revokeSessions(userID: userID, except: nil, deviceID: deviceID, now: now, in: db)
            }
            return FailureOutcome(walletDeactivated: !wallet.isEmpty, deviceDeactivated: !device.isEmpty)
        }
        if outcome.walletDeactivated { sessions.remove(userID: userID, deviceID: nil) }
        if outcome.deviceDeactivated { sessions.remove(userID: userID, deviceID: deviceID) }
        return outcome
    }

    public func releaseAttempt(userID: String, deviceID: String?) async throws {
        try await engine.transaction { db in
            if let deviceID {
                try await db.execute("""
                    UPDATE devices SET failed_attempts = failed_attempts - 1
                    WHERE user_id = $1 AND device_id = $2 AND failed_attempts > 0
                    """, [.text(userID), .text(deviceID)])
            }
            try await db.execute("UPDATE users SET failed_attempts = failed_attempts - 1 WHERE id = $1 AND failed_attempts > 0",
                                 [.text(userID)])
        }
    }

    public func recordSuccess(userID: String, deviceID: String?, loginAt: Date?, software: DeviceSoftware,
                              languages: String?) async throws {
        let login = loginAt?.epochSeconds ?? .null
        try await engine.transaction { db in
            if let deviceID {
                try await db.execute("""
                    UPDATE devices SET failed_attempts = 0, last_login_at = COALESCE($3, last_login_at),
                        device_type = COALESCE($4, device_type), app_version = COALESCE($5, app_version),
                        sdk_version = COALESCE($6, sdk_version)
                    WHERE user_id = $1 AND device_id = $2
                    """, [.text(userID), .text(deviceID), login, software.deviceType.sql, software.applicationVersion.sql,
                          software.sdkVersion.sql])
            }
            try await db.execute("""
                UPDATE users SET failed_attempts = 0, last_login_at = COALESCE($2, last_login_at), languages = COALESCE($3, languages)
                WHERE id = $1
                """, [.text(userID), login, languages.sql])
        }
    }

    public func setUserStatus(userID: String, change: UserStatusChange, now: Date) async throws {
        try await engine.transaction { db in
            db.audit?.record(.walletStatusChanged, user: userID, reason: .status(change.status), at: now)
            try await db.execute("UPDATE users SET status = $2\(change.clearsFailures ? ", failed_attempts = 0" : "") WHERE id = $1",
                                 [.text(userID), .text(change.status.rawValue)])
            if change.clearsFailures { try await Self.clearUnlinkedAttempts(userID: userID, in: db) }
            if change.endsSessions { try await Self.revokeSessions(userID: userID, except: nil, deviceID: nil, now: now, in: db) }
        }
        if change.endsSessions { sessions.remove(userID: userID, deviceID: nil) }
    }

    public func markAppInstanceVerified(userID: String) async throws {
        try await engine.execute("UPDATE users SET app_instance_verified = 1 WHERE id = $1", [.text(userID)])
    }

    public func markEmailVerified(userID: String) async throws {
        try await engine.execute("UPDATE users SET email_verified = 1, pending_until = NULL WHERE id = $1", [.text(userID)])
    }

    public func users(issuer: String, limit: Int, offset: Int) async throws -> [UserRecord] {
        try await engine.read("SELECT * FROM users WHERE issuer = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3",
                               [.text(issuer), .integer(Int64(limit)), .integer(Int64(offset))]).map { try UserRecord(row: $0) }
    }

    public func device(userID: String, deviceID: String) async throws -> DeviceRecord? {
        try await engine.read("SELECT * FROM devices WHERE user_id = $1 AND device_id = $2",
                               [.text(userID), .text(deviceID)]).first.map { try DeviceRecord(row: $0) }
    }

    public func devices(userID: String) async throws -> [DeviceRecord] {
        try await engine.read("SELECT * FROM devices WHERE user_id = $1 ORDER BY linked_at, device_id", [.text(userID)])
            .map { try DeviceRecord(row: $0) }
    }

    public func deviceOwner(deviceID: String) async throws -> DeviceRecord? {
        try await engine.read("SELECT * FROM devices WHERE device_id = $1 ORDER BY linked_at DESC LIMIT 1", [.text(deviceID)])
            .first.map { try DeviceRecord(row: $0) }
    }

    public func linkDevice(userID: String, deviceID: String, deviceType: String?, label: String?, now: Date) async throws {
        try await Self.linkDevice(userID: userID, deviceID: deviceID, deviceType: deviceType, label: label, now: now, in: engine)
    }

    public func unlinkDevice(userID: String, deviceID: String, now: Date, messages: [OutboxMessage]) async throws -> Bool {
        let removed = try await engine.transaction { db in
            let gone = try await db.query("DELETE FROM devices WHERE user_id = $1 AND device_id = $2 RETURNING device_id",
                                          [.text(userID), .text(deviceID)])
            guard !gone.isEmpty else { return false }
            try await Self.revokeSessions(userID: userID, except: nil, deviceID: deviceID, now: now, in: db)
            try await db.execute("""
                UPDATE device_tokens SET revoked_at = $3 WHERE user_id = $1 AND device_id = $2 AND revoked_at IS NULL
                """, [.text(userID), .text(deviceID), now.epochSeconds])
            try await Self.revokeCertificates(userID: userID, deviceID: deviceID, now: now, in: db)
            try await Self.deleteLoginStatistics(userID: userID, deviceID: deviceID, in: db)
            for message in messages { try await Self.insert(message, into: db) }
            return true
        }
        if removed { sessions.remove(userID: userID, deviceID: deviceID) }
        return removed
    }

    /// Links a device to a user (idempotent) with `db`, e.g. inside a transaction.
    /// Throws `StoreError.deviceKeyInUse` when the device is a key linked to another wallet.
    package static func linkDevice(userID: String, deviceID: String, deviceType: String?, label: String?, now: Date,
                           in db: any SQLExecutor) async throws {
        do {
            try await db.execute("""
                INSERT INTO devices (user_id, device_id, device_type, linked_at, label) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (user_id, device_id) DO NOTHING
                """, [.text(userID), .text(deviceID), deviceType.sql, now.epochSeconds, label.sql])
        } catch SQLEngineError.uniqueViolation(.deviceKey) {
            throw StoreError.deviceKeyInUse
        }
    }

    public func setDeviceStatus(userID: String, deviceID: String, change: DeviceStatusChange, now: Date) async throws {
        try await engine.transaction { db in
            db.audit?.record(.deviceStatusChanged, user: userID, reason: .status(change.status), deviceID: deviceID, at: now)
            try await db.execute("""
                UPDATE devices SET status = $3\(change.clearsFailures ? ", failed_attempts = 0" : "")
                WHERE user_id = $1 AND device_id = $2
                """, [.text(userID), .text(deviceID), .text(change.status.rawValue)])
            if change.endsSessions {
                try await Self.revokeSessions(userID: userID, except: nil, deviceID: deviceID, now: now, in: db)
            }
            if change.revokesCertificates {
                try await Self.revokeCertificates(userID: userID, deviceID: deviceID, now: now, in: db)
            }
        }
        if change.endsSessions { sessions.remove(userID: userID, deviceID: deviceID) }
    }

    public func createToken(_ token: TokenRecord) async throws {
        try await Self.insert(token, into: engine)
    }

    public func token(digest: String, purpose: TokenPurpose, now: Date) async throws -> TokenRecord? {
        try await engine.read("SELECT * FROM tokens WHERE digest = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3",
                               [.text(digest), .text(purpose.rawValue), now.epochSeconds]).first.map { try TokenRecord(row: $0) }
    }

    public func createSession(_ session: SessionRecord) async throws {
        try await Self.insert(session, into: engine)
    }

    package static func insert(_ session: SessionRecord, into db: any SQLExecutor) async throws {
        try await db.execute("""
            INSERT INTO sessions (digest, user_id, device_id, created_at, last_seen_at, expires_at, key_thumbprint, limited,
                                  factor_checked_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """, [.text(session.digest), .text(session.userID), session.deviceID.sql, session.createdAt.epochSeconds,
                  session.lastSeenAt.epochSeconds, session.expiresAt.epochSeconds, session.keyThumbprint.sql,
                  .integer(session.limited ? 1 : 0), session.factorCheckedAt?.epochSeconds ?? .null])
    }

    public func touchSession(digest: String, now: Date, idle: TimeInterval) async throws -> SessionRecord? {
        var session: SessionRecord
        if let cached = sessions.session(digest, now: now) {
            session = cached
        } else {
            guard let read = try await engine.read("SELECT * FROM sessions WHERE digest = $1 AND revoked_at IS NULL",
                                                    [.text(digest)]).first.map({ try SessionRecord(row: $0) })
            else { return nil }
            session = read
            sessions.store(session, now: now)
        }
        guard session.expiresAt > now, session.lastSeenAt > now.addingTimeInterval(-idle) else { return nil }
        if now.timeIntervalSince(session.lastSeenAt) >= Self.touchGranularity {
            try await engine.execute("UPDATE sessions SET last_seen_at = $2 WHERE digest = $1 AND last_seen_at < $2",
                                     [.text(digest), now.epochSeconds])
            session.lastSeenAt = now
            sessions.store(session, now: now)
        }
        return session
    }

    /// Sessions record use at most once per this many seconds, so a session check is a read.
    package static var touchGranularity: TimeInterval { 30 }

    public func revokeSession(digest: String, now: Date) async throws -> Bool {
        sessions.remove(digest)
        return try await !engine.query("UPDATE sessions SET revoked_at = $2 WHERE digest = $1 AND revoked_at IS NULL RETURNING digest",
                                [.text(digest), now.epochSeconds]).isEmpty
    }

    public func revokeSessions(userID: String, except: String?, deviceID: String?, now: Date) async throws {
        sessions.remove(userID: userID, deviceID: deviceID)
        try await Self.revokeSessions(userID: userID, except: except, deviceID: deviceID, now: now, in: engine)
        // Again after the update: a check that missed the cache in between may have cached the row
        // as it was before.
        sessions.remove(userID: userID, deviceID: deviceID)
    }

    /// Revokes a user's sessions (all, all but one, or one device's) with `db`, e.g. inside a transaction.
    package static func revokeSessions(userID: String, except: String?, deviceID: String?, now: Date, in db: any SQLExecutor) async throws {
        try await db.execute("""
            UPDATE sessions SET revoked_at = $2
            WHERE user_id = $1 AND revoked_at IS NULL AND ($3 = '' OR digest <> $3) AND ($4 = '' OR device_id = $4)
            """, [.text(userID), now.epochSeconds, .text(except ?? ""), .text(deviceID ?? "")])
    }

    public func createDeviceToken(_ token: DeviceTokenRecord, messages: [OutboxMessage]) async throws {
        try await engine.transaction { db in
            try await db.execute("""
                INSERT INTO device_tokens (digest, user_id, device_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
                """, [.text(token.digest), .text(token.userID), .text(token.deviceID), token.createdAt.epochSeconds,
                      token.expiresAt.epochSeconds])
            for message in messages { try await Self.insert(message, into: db) }
        }
    }

    public func deviceToken(digest: String) async throws -> DeviceTokenRecord? {
        try await engine.read("SELECT * FROM device_tokens WHERE digest = $1", [.text(digest)]).first.map { try DeviceTokenRecord(row: $0) }
    }

    public func revokeDeviceToken(digest: String, now: Date) async throws -> Bool {
        try await !engine.query("""
            UPDATE device_tokens SET revoked_at = $2 WHERE digest = $1 AND revoked_at IS NULL AND expires_at > $2 RETURNING digest
            """, [.text(digest), now.epochSeconds]).isEmpty
    }

    public func revokeDeviceTokens(userID: String, now: Date) async throws {
        try await Self.revokeDeviceTokens(userID: userID, now: now, in: engine)
    }

    /// Revokes every device token of a user with `db`, e.g. inside a transaction.
    package static func revokeDeviceTokens(userID: String, now: Date, in db: any SQLExecutor) async throws {
        try await db.execute("UPDATE device_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL",
                             [.text(userID), now.epochSeconds])
    }
}
