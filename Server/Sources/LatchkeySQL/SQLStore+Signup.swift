import Foundation
import LatchkeyDomain

extension SQLStore {
    public func createFlow(_ flow: FlowRecord) async throws {
        try await engine.execute("""
            INSERT INTO flows (id, issuer, kind, request_url, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
            """, [.text(flow.id), .text(flow.issuer), .text(flow.kind.rawValue), .text(flow.requestURL),
                  flow.createdAt.epochSeconds, flow.expiresAt.epochSeconds])
    }

    public func flow(id: String) async throws -> FlowRecord? {
        try await engine.read("SELECT * FROM flows WHERE id = $1", [.text(id)]).first.map { try FlowRecord(row: $0) }
    }

    public func recordOTP(flowID: String, phone: String, digest: String, expiresAt: Date, limits: OTPSendLimits,
                          message: OutboxMessage, now: Date) async throws -> Bool {
        try await engine.transaction { db in
            let updated = try await db.query("""
                UPDATE flows SET phone_verified_at = CASE WHEN phone = $2 THEN phone_verified_at ELSE NULL END,
                    phone = $2, otp_digest = $3, otp_expires_at = $4, otp_sends = otp_sends + 1, otp_sent_at = $5
                WHERE id = $1 AND kind = 'registration' AND used_at IS NULL AND expires_at > $5 AND otp_sends < $6
                    AND (otp_sent_at IS NULL OR otp_sent_at <= $7)
                RETURNING id
                """, [.text(flowID), .text(phone), .text(digest), expiresAt.epochSeconds, now.epochSeconds,
                      .integer(Int64(limits.maxSends)), now.addingTimeInterval(-limits.interval).epochSeconds])
            if updated.isEmpty { return false }
            try await Self.insert(message, into: db)
            return true
        }
    }

    public func reserveOTPAttempt(flowID: String, now: Date, limit: Int) async throws -> FlowRecord? {
        try await engine.query("""
            UPDATE flows SET otp_attempts = otp_attempts + 1
            WHERE id = $1 AND used_at IS NULL AND expires_at > $2 AND otp_digest IS NOT NULL AND otp_attempts < $3
            RETURNING *
            """, [.text(flowID), now.epochSeconds, .integer(Int64(limit))]).first.map { try FlowRecord(row: $0) }
    }

    public func markPhoneVerified(flowID: String, now: Date) async throws {
        try await engine.execute("UPDATE flows SET phone_verified_at = $2, otp_digest = NULL WHERE id = $1",
                                 [.text(flowID), now.epochSeconds])
    }

    public func completeRegistration(flowID: String, user: UserRecord, deviceID: String?, session: SessionRecord,
                                     tokens: [TokenRecord], messages: [OutboxMessage], now: Date) async throws {
        do {
            try await engine.transaction { db in
                let used = try await db.query("""
                    UPDATE flows SET used_at = $2
                    WHERE id = $1 AND kind = 'registration' AND used_at IS NULL AND expires_at > $2
                        AND phone_verified_at IS NOT NULL AND phone = $3
                    RETURNING id
                    """, [.text(flowID), now.epochSeconds, user.phoneNormalized.sql])
                if used.isEmpty { throw StoreError.flowNotUsable }
                try await Self.insert(user, into: db)
                if let deviceID {
                    try await Self.linkDevice(userID: user.id, deviceID: deviceID, deviceType: nil, label: nil, now: now, in: db)
                }
                try await Self.insert(session, into: db)
                for token in tokens { try await Self.insert(token, into: db) }
                for message in messages { try await Self.insert(message, into: db) }
            }
        } catch SQLEngineError.uniqueViolation(.userPhone) {
            throw StoreError.phoneInUse
        } catch SQLEngineError.uniqueViolation(.userEmail) {
            throw StoreError.emailInUse
        }
    }

    public func useFlow(id: String, kind: FlowRecord.Kind, now: Date) async throws -> Bool {
        !(try await engine.query("""
            UPDATE flows SET used_at = $3 WHERE id = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3 RETURNING id
            """, [.text(id), .text(kind.rawValue), now.epochSeconds]).isEmpty)
    }

    public func user(issuer: String, phoneNormalized: String) async throws -> UserRecord? {
        try await engine.read("SELECT * FROM users WHERE issuer = $1 AND phone_normalized = $2",
                               [.text(issuer), .text(phoneNormalized)]).first.map { try UserRecord(row: $0) }
    }

    public func revokeSession(digest: String, provenKey: String?, now: Date) async throws -> SessionRevocation {
        let revoked = try await engine.query("""
            UPDATE sessions SET revoked_at = $2
            WHERE digest = $1 AND revoked_at IS NULL AND (key_thumbprint IS NULL OR key_thumbprint = $3) RETURNING digest
            """, [.text(digest), now.epochSeconds, provenKey.sql])
        if !revoked.isEmpty {
            sessions.remove(digest)
            return .revoked
        }
        guard let row = try await engine.read("SELECT revoked_at FROM sessions WHERE digest = $1", [.text(digest)]).first else {
            return .unknown
        }
        return try row.optionalDate("revoked_at") == nil ? .boundToAnotherKey : .alreadyRevoked
    }

    /// One active certificate per device: the device's earlier ones are revoked in the same transaction.
    public func registerDeviceKey(_ certificate: DeviceCertificateRecord, label: String?, deviceType: String?,
                                  sessionDigest: String, keyThumbprint: String) async throws {
        try await engine.transaction { db in
            try await Self.linkDevice(userID: certificate.userID, deviceID: certificate.deviceID, deviceType: deviceType,
                                      label: label, now: certificate.createdAt, in: db)
            try await Self.revokeCertificates(userID: certificate.userID, deviceID: certificate.deviceID,
                                              now: certificate.createdAt, in: db)
            try await db.execute("""
                INSERT INTO device_certificates (serial, user_id, device_id, public_key, certificate, created_at, expires_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """, [.text(certificate.serial), .text(certificate.userID), .text(certificate.deviceID),
                      .text(certificate.publicKey), .text(certificate.certificatePEM), certificate.createdAt.epochSeconds,
                      certificate.expiresAt.epochSeconds])
            // A session already bound to another key keeps it (the edge refused its proof anyway).
            try await db.execute("""
                UPDATE sessions SET key_thumbprint = $2, device_id = $3, limited = 0
                WHERE digest = $1 AND user_id = $4 AND (key_thumbprint IS NULL OR key_thumbprint = $2)
                """, [.text(sessionDigest), .text(keyThumbprint), .text(certificate.deviceID), .text(certificate.userID)])
        }
        sessions.remove(sessionDigest)
    }

    public func deviceCertificate(serial: String) async throws -> DeviceCertificateRecord? {
        try await engine.read("SELECT * FROM device_certificates WHERE serial = $1", [.text(serial)])
            .first.map { try DeviceCertificateRecord(row: $0) }
    }

    /// Revokes the live certificates of a user's device, or of all its devices when `deviceID` is nil.
    /// Each revocation is an audit event of the transaction.
    package static func revokeCertificates(userID: String, deviceID: String?, now: Date, in db: any SQLExecutor) async throws {
        let revoked = try await db.query("""
            UPDATE device_certificates SET revoked_at = $2
            WHERE user_id = $1 AND revoked_at IS NULL AND ($3 = '' OR device_id = $3) RETURNING serial, device_id
            """, [.text(userID), now.epochSeconds, .text(deviceID ?? "")])
        for row in revoked {
            db.audit?.record(.certificateRevoked, user: userID, deviceID: try row.string("device_id"),
                              details: ["serial": try row.string("serial")], at: now)
        }
    }

    public func deviceCertificates(userID: String, deviceID: String) async throws -> [DeviceCertificateRecord] {
        try await engine.read("""
            SELECT * FROM device_certificates WHERE user_id = $1 AND device_id = $2 ORDER BY created_at DESC, serial
            """, [.text(userID), .text(deviceID)]).map { try DeviceCertificateRecord(row: $0) }
    }
}

