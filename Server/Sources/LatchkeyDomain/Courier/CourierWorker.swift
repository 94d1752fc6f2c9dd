import Foundation
import Logging
import ServiceLifecycle
import Tracing

/// Delivers the outbox: leases due messages, hands them to the channel, and records the result.
/// A transient failure (any error but a permanent `DeliveryFailure`) is retried with exponential
/// backoff (1 s, 2 s, 4 s, … at most 1 h), or after the receiver's `Retry-After` when it gave one,
/// up to `maxAttempts`; a permanent refusal is recorded at once with the receiver's answer and not
/// retried. Messages stay in the database until delivered, so a restart loses none.
public struct CourierWorker: Service {
    package let store: any OutboxStore
    package let channel: any MessageChannel
    package let cipher: OutboxCipher
    package let settings: CourierSettings
    package let logger: Logger
    package let now: @Sendable () -> Date
    /// The schema is current (the store service opens it); the courier starts after it.
    package let ready: ReadinessGate?

    public init(store: any OutboxStore, channel: any MessageChannel, cipher: OutboxCipher, settings: CourierSettings,
                logger: Logger, now: @escaping @Sendable () -> Date = Date.init, ready: ReadinessGate? = nil) {
        self.ready = ready
        self.store = store
        self.channel = channel
        self.cipher = cipher
        self.settings = settings
        self.logger = logger
        self.now = now
    }

    /// Delivers until the shutdown. A pass under way is finished; the wait between passes ends
    /// when the shutdown begins, so an idle server stops at once.
    public func run() async throws {
        let interval = Duration.milliseconds(settings.pollIntervalMilliseconds)
        try await ready?.wait()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                if try await deliverDue() == 0 { try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) } }
            } catch is CancellationError {
                return
            } catch {
                logger.error("Courier pass failed: \(error)")
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            }
        }
    }

    /// One pass over the due messages; answers how many it attempted.
    ///
    /// The pass leases what it claims for `settings.leaseSeconds`, and starts an attempt only while
    /// the attempt, bounded by `attemptTimeoutSeconds`, ends within the lease, so another replica
    /// never claims a message whose attempt is still under way: each attempt hands a message over
    /// once. What the pass could not start waits for the lease to end and is claimed again.
    @discardableResult
    public func deliverDue(limit: Int = 20) async throws -> Int {
        let clock = ContinuousClock()
        let claimed = clock.now
        let lease = Duration.seconds(settings.leaseSeconds)
        let attemptLimit = Duration.seconds(settings.attemptTimeoutSeconds)
        let due = try await store.claimMessages(now: now(), lease: TimeInterval(settings.leaseSeconds), limit: limit)
        var attempted = 0
        for row in due {
            // The margin keeps the end of an attempt clear of the lease's end despite clock drift between replicas.
            guard claimed.duration(to: clock.now) + attemptLimit + CourierSettings.leaseMargin <= lease else { break }
            attempted += 1
            let attempts = row.attempts + 1
            guard let message = cipher.open(row) else {
                try await store.markFailed(id: row.id, attempts: attempts, nextAttemptAt: now(),
                                           error: "payload cannot be opened (pepper changed?)", giveUp: true, now: now())
                continue
            }
            do {
                // A delivery is a trace of its own: the request that queued the message has answered.
                try await Telemetry.span("courier.deliver", kind: .producer) { span in
                    span?.attributes["latchkey.message.channel"] = message.channel.rawValue
                    span?.attributes["latchkey.message.template"] = message.template
                    span?.attributes["latchkey.message.attempt"] = attempts
                    try await attempt(message, limit: attemptLimit)
                }
                try await store.markDelivered(id: row.id, at: now())
            } catch {
                let failure = error as? DeliveryFailure
                let giveUp = failure?.isPermanent == true || attempts >= settings.maxAttempts
                let delay = min(3600, failure?.retryAfter ?? pow(2, Double(attempts - 1)))
                // A receiver's answer may echo the recipient, the code or the link (a relay's
                // `550 <bob@example.com>`): none of them reaches the outbox row or the log.
                let said = message.redacting("\(error)")
                try await store.markFailed(id: row.id, attempts: attempts, nextAttemptAt: now().addingTimeInterval(delay),
                                           error: said, giveUp: giveUp, now: now())
                logger.warning("Delivery failed", metadata: ["message_id": "\(row.id)", "attempt": "\(attempts)",
                                                             "gave_up": "\(giveUp)", "error": "\(said)"])
            }
        }
        return attempted
    }

    /// One handover to the channel, cancelled and counted transient when it outlasts `limit`
    /// (a relay or provider that stalls mid-answer).
    private func attempt(_ message: OutgoingMessage, limit: Duration) async throws {
        let channel = channel
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await channel.deliver(message) }
            group.addTask {
                try await Task.sleep(for: limit)
                throw DeliveryFailure(.transient, answer: "no answer within \(limit.components.seconds) s (courier.attemptTimeoutSeconds)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
