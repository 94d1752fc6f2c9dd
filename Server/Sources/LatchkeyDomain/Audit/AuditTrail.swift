import Foundation

/// The security events of one unit of work — a request, a command, a store transaction — waiting
/// for the write that carries them, and where the work comes from. A request's trail is made at
/// the edge and travels in its `Caller` (`caller.audit`); a service records into it
/// (`AuditRecorder`) just before the change an event describes, and the store it writes through
/// (`store.recording(into: caller.audit)`) inserts everything pending in the transaction of that
/// write, so the event and the change commit or roll back together. What no write carried (a
/// refused login changes nothing) is written on its own when the work ends (`flush`).
public final class AuditTrail: @unchecked Sendable {
    public let actor: AuditActor
    private let lock = NSLock()
    private var events: [AuditEvent] = []
    private var device: String?
    private var address: String?

    public init(actor: AuditActor, clientIP: String? = nil, deviceID: String? = nil) {
        self.actor = actor
        self.address = clientIP
        self.device = deviceID
    }

    /// Records an event. Device and address are the work's (`identify`) when not given.
    package func record(_ type: AuditEventType, user userID: String?, outcome: AuditOutcome = .success, reason: AuditReason? = nil,
                        deviceID: String? = nil, details: [String: String] = [:], at time: Date) {
        let origin = self.origin
        append(AuditEvent(id: AuditEvent.newID(at: time), occurredAt: time, type: type, outcome: outcome, userID: userID,
                          actor: actor, reason: reason?.rawValue, deviceID: deviceID ?? origin.deviceID,
                          clientIP: origin.clientIP, details: details))
    }

    /// The work's device and client address, as far as they are known.
    package var origin: (deviceID: String?, clientIP: String?) { lock.withLock { (device, address) } }

    /// Names the device and the client address of the events, once the edge has resolved them.
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

    /// Writes on their own the events no write carried. Most requests record nothing (a session
    /// check, a page): no call at all then.
    public func flush(to store: any AuditStore) async throws {
        let leftovers = take()
        if !leftovers.isEmpty { try await store.appendAuditEvents(leftovers) }
    }

    /// Runs `body` with a trail of its own (a command's), written as `flush` says however `body`
    /// ends; a failed body's events are written as well as can be, its own error is what the
    /// caller gets.
    public static func run<T: Sendable>(actor: AuditActor, clientIP: String? = nil, store: any AuditStore,
                                        _ body: (AuditTrail) async throws -> T) async throws -> T {
        let trail = AuditTrail(actor: actor, clientIP: clientIP)
        let result: Result<T, any Error>
        do { result = .success(try await body(trail)) } catch { result = .failure(error) }
        if case .success = result { try await trail.flush(to: store) } else { try? await trail.flush(to: store) }
        return try result.get()
    }
}
