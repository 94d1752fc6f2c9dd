import Foundation

/// Where security events wait for the write that carries them. An event is recorded just before
/// the change it describes (or inside the store's transaction, when only the transaction knows
/// the outcome, like a lockout); `AuditedEngine` writes everything pending in the transaction of
/// the task's next write, so the event and the change commit or roll back together. Events of
/// requests that change nothing (a refused login) are written on their own when the request
/// ends (`AuditTrail.scope`).
public enum AuditTrail {
    /// The events of the current request or command, and where it comes from.
    @TaskLocal package static var buffer: AuditBuffer?

    /// Records an event of the running task. Device and address are the request's, as the edge
    /// resolved them (`identify`), when not given. Without a scope (a store used directly) the
    /// event is dropped; services run in one (a request, a command, a store transaction).
    package static func record(_ type: AuditEventType, user userID: String?, outcome: AuditOutcome = .success, reason: AuditReason? = nil,
                       deviceID: String? = nil, details: [String: String] = [:], at time: Date) {
        guard let buffer else { return }
        let origin = buffer.origin
        buffer.append(AuditEvent(id: AuditEvent.newID(at: time), occurredAt: time, type: type, outcome: outcome, userID: userID,
                                 actor: buffer.actor, reason: reason?.rawValue, deviceID: deviceID ?? origin.deviceID,
                                 clientIP: origin.clientIP, details: details))
    }

    /// Names the device and the client address of the running request's events, once the edge
    /// has resolved them (the scope opens before, with the address only).
    package static func identify(device: String?, clientIP: String) {
        buffer?.identify(device: device, clientIP: clientIP)
    }

    /// Runs `body` with its own events, and writes on their own those no write carried.
    public static func scope<T: Sendable>(actor: AuditActor, clientIP: String? = nil, store: any AuditStore,
                                          _ body: () async throws -> T) async throws -> T {
        let buffer = AuditBuffer(actor: actor, clientIP: clientIP)
        let result: Result<T, any Error>
        do { result = .success(try await $buffer.withValue(buffer) { try await body() }) } catch { result = .failure(error) }
        // Most requests record nothing (a session check, a page): no call at all then. A failed
        // body's events are written as well as can be; its own error is what the caller gets.
        let leftovers = buffer.take()
        if !leftovers.isEmpty {
            if case .success = result { try await store.appendAuditEvents(leftovers) } else { try? await store.appendAuditEvents(leftovers) }
        }
        return try result.get()
    }
}

/// The pending events of one task, and where its request comes from.
package final class AuditBuffer: @unchecked Sendable {
    package let actor: AuditActor
    private let lock = NSLock()
    private var events: [AuditEvent] = []
    private var device: String?
    private var address: String?

    package init(actor: AuditActor, clientIP: String? = nil, deviceID: String? = nil) {
        self.actor = actor
        self.address = clientIP
        self.device = deviceID
    }

    /// The request's device and client address, as far as they are known.
    package var origin: (deviceID: String?, clientIP: String?) { lock.withLock { (device, address) } }

    package func identify(device: String?, clientIP: String) {
        lock.withLock {
            self.device = device
            self.address = clientIP
        }
    }

    package func append(_ event: AuditEvent) { lock.withLock { events.append(event) } }

    package var isEmpty: Bool { lock.withLock { events.isEmpty } }

    /// The pending events, leaving none.
    package func take() -> [AuditEvent] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }
}
