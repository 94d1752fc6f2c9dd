import Foundation

extension SQLRow {
    func text(_ column: String) -> String? { self[column]?.string }
    func date(_ column: String) -> Date? { self[column]?.int.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
}

extension UserRecord {
    init(row: SQLRow) {
        self.init(id: row.text("id") ?? "", issuer: row.text("issuer") ?? "", email: row.text("email") ?? "",
                  emailNormalized: row.text("email_normalized") ?? "", firstName: row.text("first_name"),
                  lastName: row.text("last_name"), phone: row.text("phone"), externalId: row.text("external_id"),
                  passwordHash: row.text("password_hash"), passcodeHash: row.text("passcode_hash"),
                  emailVerified: row["email_verified"]?.int == 1, status: row.text("status") ?? "active",
                  profileJSON: row.text("profile_json") ?? "{}", createdAt: row.date("created_at") ?? .distantPast,
                  updatedAt: row.date("updated_at") ?? .distantPast, failedAttempts: Int(row["failed_attempts"]?.int ?? 0),
                  appInstanceVerified: row["app_instance_verified"]?.int == 1,
                  passwordUpdatedAt: row.date("password_updated_at"), lastLoginAt: row.date("last_login_at"),
                  locked: row["locked"]?.int == 1, phoneNormalized: row.text("phone_normalized"))
    }
}

extension TokenRecord {
    init?(row: SQLRow) {
        guard let purpose = row.text("purpose").flatMap(TokenPurpose.init(rawValue:)) else { return nil }
        self.init(digest: row.text("digest") ?? "", purpose: purpose, userID: row.text("user_id") ?? "",
                  deviceID: row.text("device_id"), createdAt: row.date("created_at") ?? .distantPast,
                  expiresAt: row.date("expires_at") ?? .distantPast, usedAt: row.date("used_at"), data: row.text("data"),
                  attempts: Int(row["attempts"]?.int ?? 0))
    }
}

extension OutboxMessage {
    init(row: SQLRow) {
        self.init(id: row.text("id") ?? "", channel: row.text("channel") ?? "", recipient: row.text("recipient") ?? "",
                  template: row.text("template") ?? "", subject: row.text("subject") ?? "",
                  sealedPayload: row.text("sealed_payload"), createdAt: row.date("created_at") ?? .distantPast,
                  attempts: Int(row["attempts"]?.int ?? 0), nextAttemptAt: row.date("next_attempt_at") ?? .distantPast,
                  deliveredAt: row.date("delivered_at"), failedAt: row.date("failed_at"), lastError: row.text("last_error"))
    }
}

extension DeviceRecord {
    init(row: SQLRow) {
        self.init(userID: row.text("user_id") ?? "", deviceID: row.text("device_id") ?? "", deviceType: row.text("device_type"),
                  status: row.text("status") ?? "active", failedAttempts: Int(row["failed_attempts"]?.int ?? 0),
                  linkedAt: row.date("linked_at") ?? .distantPast, lastLoginAt: row.date("last_login_at"))
    }
}

extension SessionRecord {
    init(row: SQLRow) {
        self.init(digest: row.text("digest") ?? "", userID: row.text("user_id") ?? "", deviceID: row.text("device_id"),
                  createdAt: row.date("created_at") ?? .distantPast, lastSeenAt: row.date("last_seen_at") ?? .distantPast,
                  expiresAt: row.date("expires_at") ?? .distantPast, revokedAt: row.date("revoked_at"))
    }
}

extension DeviceTokenRecord {
    init(row: SQLRow) {
        self.init(digest: row.text("digest") ?? "", userID: row.text("user_id") ?? "", deviceID: row.text("device_id") ?? "",
                  createdAt: row.date("created_at") ?? .distantPast, expiresAt: row.date("expires_at") ?? .distantPast,
                  revokedAt: row.date("revoked_at"))
    }
}
