import Foundation
import LatchkeyDomain

/// Reading a stored row is strict: a missing column, a NULL where a value is required, a value of
/// the wrong type or an unknown enum value throws `StoreError.undecodableRow` rather than
/// becoming a default that would change what the server decides.
extension SQLRow {
    private func cell(_ column: String) throws -> SQLValue {
        guard let value = self[column] else { throw StoreError.undecodableRow(column: column, reason: "missing column") }
        return value
    }

    /// A required text column.
    package func string(_ column: String) throws -> String {
        guard let value = try optionalString(column) else { throw StoreError.undecodableRow(column: column, reason: "NULL") }
        return value
    }

    /// A nullable text column.
    package func optionalString(_ column: String) throws -> String? {
        switch try cell(column) {
        case .text(let value): value
        case .null: nil
        case .integer: throw StoreError.undecodableRow(column: column, reason: "integer where text is stored")
        }
    }

    /// A required integer column.
    package func integer(_ column: String) throws -> Int {
        guard let value = try optionalInteger(column) else { throw StoreError.undecodableRow(column: column, reason: "NULL") }
        return value
    }

    /// A nullable integer column.
    package func optionalInteger(_ column: String) throws -> Int? {
        switch try cell(column) {
        case .integer(let value): Int(value)
        case .null: nil
        case .text: throw StoreError.undecodableRow(column: column, reason: "text where an integer is stored")
        }
    }

    /// A required 0/1 column.
    package func bool(_ column: String) throws -> Bool {
        switch try integer(column) {
        case 0: false
        case 1: true
        case let other: throw StoreError.undecodableRow(column: column, reason: "\(other) where 0 or 1 is stored")
        }
    }

    /// A required time (whole seconds since 1970).
    package func date(_ column: String) throws -> Date { Date(timeIntervalSince1970: TimeInterval(try integer(column))) }

    /// A nullable time.
    package func optionalDate(_ column: String) throws -> Date? {
        try optionalInteger(column).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// A required column holding one of an enum's raw values.
    package func value<T: RawRepresentable>(_ column: String, as type: T.Type = T.self) throws -> T where T.RawValue == String {
        let raw = try string(column)
        guard let value = T(rawValue: raw) else {
            throw StoreError.undecodableRow(column: column, reason: "unknown value \(raw.prefix(32))")
        }
        return value
    }
}

extension UserRecord {
    package init(row: SQLRow) throws {
        self.init(id: try row.string("id"), issuer: try row.string("issuer"), email: try row.string("email"),
                  emailNormalized: try row.string("email_normalized"), firstName: try row.optionalString("first_name"),
                  lastName: try row.optionalString("last_name"), phone: try row.optionalString("phone"),
                  externalId: try row.optionalString("external_id"), passwordHash: try row.optionalString("password_hash"),
                  passcodeHash: try row.optionalString("passcode_hash"), emailVerified: try row.bool("email_verified"),
                  status: try row.value("status"), profileJSON: try row.string("profile_json"),
                  createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
                  failedAttempts: try row.integer("failed_attempts"), appInstanceVerified: try row.bool("app_instance_verified"),
                  passwordUpdatedAt: try row.optionalDate("password_updated_at"), lastLoginAt: try row.optionalDate("last_login_at"),
                  locked: try row.bool("locked"), phoneNormalized: try row.optionalString("phone_normalized"),
                  pendingUntil: try row.optionalDate("pending_until"), languages: try row.optionalString("languages"))
    }
}

extension TokenRecord {
    package init(row: SQLRow) throws {
        self.init(digest: try row.string("digest"), purpose: try row.value("purpose"), userID: try row.string("user_id"),
                  deviceID: try row.optionalString("device_id"), createdAt: try row.date("created_at"),
                  expiresAt: try row.date("expires_at"), usedAt: try row.optionalDate("used_at"),
                  data: try row.optionalString("data"), attempts: try row.integer("attempts"))
    }
}

extension OutboxMessage {
    package init(row: SQLRow) throws {
        self.init(id: try row.string("id"), channel: try row.string("channel"), recipient: try row.string("recipient"),
                  template: try row.string("template"), subject: try row.string("subject"),
                  sealedPayload: try row.optionalString("sealed_payload"), createdAt: try row.date("created_at"),
                  attempts: try row.integer("attempts"), nextAttemptAt: try row.date("next_attempt_at"),
                  deliveredAt: try row.optionalDate("delivered_at"), failedAt: try row.optionalDate("failed_at"),
                  lastError: try row.optionalString("last_error"))
    }
}

extension DeviceRecord {
    package init(row: SQLRow) throws {
        self.init(userID: try row.string("user_id"), deviceID: try row.string("device_id"),
                  deviceType: try row.optionalString("device_type"), status: try row.value("status"),
                  failedAttempts: try row.integer("failed_attempts"), linkedAt: try row.date("linked_at"),
                  lastLoginAt: try row.optionalDate("last_login_at"), label: try row.optionalString("label"),
                  applicationVersion: try row.optionalString("app_version"), sdkVersion: try row.optionalString("sdk_version"))
    }
}

extension SessionRecord {
    package init(row: SQLRow) throws {
        self.init(digest: try row.string("digest"), userID: try row.string("user_id"), deviceID: try row.optionalString("device_id"),
                  createdAt: try row.date("created_at"), lastSeenAt: try row.date("last_seen_at"),
                  expiresAt: try row.date("expires_at"), revokedAt: try row.optionalDate("revoked_at"),
                  keyThumbprint: try row.optionalString("key_thumbprint"), limited: try row.bool("limited"),
                  factorCheckedAt: try row.optionalDate("factor_checked_at"))
    }
}

extension DeviceTokenRecord {
    package init(row: SQLRow) throws {
        self.init(digest: try row.string("digest"), userID: try row.string("user_id"), deviceID: try row.string("device_id"),
                  createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
                  revokedAt: try row.optionalDate("revoked_at"))
    }
}

extension MFAAnswerRecord {
    package init(row: SQLRow) throws {
        self.init(question: try row.string("question"), answerHash: try row.string("answer_hash"))
    }
}

extension DeviceCertificateRecord {
    package init(row: SQLRow) throws {
        self.init(serial: try row.string("serial"), userID: try row.string("user_id"), deviceID: try row.string("device_id"),
                  publicKey: try row.string("public_key"), certificatePEM: try row.string("certificate"),
                  createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
                  revokedAt: try row.optionalDate("revoked_at"))
    }
}

extension FlowRecord {
    package init(row: SQLRow) throws {
        self.init(id: try row.string("id"), issuer: try row.string("issuer"), kind: try row.value("kind"),
                  requestURL: try row.string("request_url"), createdAt: try row.date("created_at"),
                  expiresAt: try row.date("expires_at"), usedAt: try row.optionalDate("used_at"), phone: try row.optionalString("phone"),
                  phoneVerifiedAt: try row.optionalDate("phone_verified_at"), otpDigest: try row.optionalString("otp_digest"),
                  otpExpiresAt: try row.optionalDate("otp_expires_at"), otpAttempts: try row.integer("otp_attempts"),
                  otpSends: try row.integer("otp_sends"), otpSentAt: try row.optionalDate("otp_sent_at"))
    }
}

extension FederationNonceRecord {
    package init(row: SQLRow, digest: String) throws {
        self.init(digest: digest, providerID: try row.string("provider_id"), subject: try row.string("subject"),
                  email: try row.optionalString("email"), emailVerified: try row.bool("email_verified"),
                  createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
    }
}
