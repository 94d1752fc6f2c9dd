import Foundation
import LatchkeyAdminAPI
import LatchkeyDomain

/// The domain's records as the admin document's shapes.
extension AdminHandler {
    static func summary(_ user: UserRecord) -> Components.Schemas.UserSummary {
        .init(id: user.id, email: user.email, phone: user.phoneNormalized, externalId: user.externalId, firstName: user.firstName, lastName: user.lastName,
              status: user.status == .active ? .active : .deactivated, locked: user.locked, emailVerified: user.emailVerified,
              createdAt: user.createdAt, lastLoginAt: user.lastLoginAt)
    }

    static func wire(_ detail: UserDetail, now: Date) -> Components.Schemas.UserDetail {
        .init(
            user: summary(detail.user), failedAttempts: detail.user.failedAttempts,
            loginBlocks: detail.loginBlocks.map { block in
                .init(reason: .init(rawValue: block.reason.rawValue)!, message: block.message, deviceId: block.deviceID, until: block.until)
            },
            devices: detail.devices.map { device in
                .init(id: device.deviceID, thumbprint: device.keyThumbprint, label: device.label, deviceType: device.deviceType,
                      applicationVersion: device.applicationVersion, sdkVersion: device.sdkVersion,
                      status: .init(rawValue: device.status.rawValue) ?? .deactivated, failedAttempts: device.failedAttempts,
                      linkedAt: device.linkedAt, lastLoginAt: device.lastLoginAt,
                      certificate: detail.certificates[device.deviceID].map { wire($0, now: now) })
            },
            sessions: detail.sessions.map { session in
                .init(id: String(session.digest.prefix(16)), deviceId: session.deviceID, createdAt: session.createdAt,
                      lastSeenAt: session.lastSeenAt, expiresAt: session.expiresAt, privilegedUntil: detail.privilegedUntil(session),
                      bound: session.keyThumbprint != nil)
            },
            moreSessions: detail.moreSessions,
            deviceTokens: detail.deviceTokens.map { token in
                .init(id: String(token.digest.prefix(16)), deviceId: token.deviceID, createdAt: token.createdAt, expiresAt: token.expiresAt)
            },
            events: detail.events.map(wire))
    }

    /// A certificate and its state at `now` (`DeviceCertificateRecord.state(at:)`; `good` is `valid` here).
    static func wire(_ certificate: DeviceCertificateRecord, now: Date) -> Components.Schemas.DeviceCertificate {
        let status: Components.Schemas.DeviceCertificate.StatusPayload = switch certificate.state(at: now) {
        case .good: .valid
        case .expired: .expired
        case .revoked: .revoked
        }
        return .init(serial: certificate.serial, status: status, issuedAt: certificate.createdAt, expiresAt: certificate.expiresAt,
                     revokedAt: certificate.revokedAt)
    }

    static func wire(_ event: AuditEvent) -> Components.Schemas.Event {
        // The document's EventType is AuditEventType's raw values (`parameterRulesAreTheDocuments`).
        .init(id: event.id, occurredAt: event.occurredAt, _type: Components.Schemas.EventType(rawValue: event.type.rawValue)!,
              outcome: event.outcome == .success ? .success : .failure, userId: event.userID,
              actor: .init(rawValue: event.actor.rawValue) ?? .system, reason: event.reason, deviceId: event.deviceID,
              clientIp: event.clientIP, details: .init(additionalProperties: event.details))
    }

    static func wire(_ message: OutboxMessage) -> Components.Schemas.CourierMessage {
        let state: Components.Schemas.CourierMessage.StatePayload = message.deliveredAt != nil ? .sent : message.failedAt != nil ? .failed : .pending
        return .init(id: message.id, channel: .init(rawValue: message.channel) ?? .email, recipient: message.recipient,
                     template: message.template, state: state, attempts: message.attempts, createdAt: message.createdAt,
                     nextAttemptAt: state == .pending ? message.nextAttemptAt : nil, deliveredAt: message.deliveredAt,
                     failedAt: message.failedAt, lastError: message.lastError)
    }

    static func wire(_ key: OperatorKeyRecord) -> Components.Schemas.OperatorKey {
        .init(id: key.id, name: key.name, role: .init(rawValue: key.role.rawValue) ?? .viewer, createdAt: key.createdAt,
              expiresAt: key.expiresAt, revokedAt: key.revokedAt, lastUsedAt: key.lastUsedAt)
    }

    /// Query items percent-encoded strictly (RFC 3986 unreserved characters only), so a `+` or a
    /// `:` in a value survives the trip.
    static func encoded(_ items: [URLQueryItem]) -> String {
        items.map { "\($0.name)=\(PercentEncoding.unreserved($0.value ?? ""))" }.joined(separator: "&")
    }
}
