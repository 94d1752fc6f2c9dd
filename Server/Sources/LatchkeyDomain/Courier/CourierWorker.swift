import Foundation
import Logging
import ServiceLifecycle

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
    @discardableResult
    public func deliverDue(limit: Int = 20) async throws -> Int {
        let due = try await store.claimMessages(now: now(), lease: 60, limit: limit)
        for row in due {
            let attempts = row.attempts + 1
            guard let message = cipher.open(row) else {
                try await store.markFailed(id: row.id, attempts: attempts, nextAttemptAt: now(),
                                           error: "payload cannot be opened (pepper changed?)", giveUp: true, now: now())
                continue
            }
            do {
                try await channel.deliver(message)
                try await store.markDelivered(id: row.id, at: now())
            } catch {
                let failure = error as? DeliveryFailure
                let giveUp = failure?.isPermanent == true || attempts >= settings.maxAttempts
                let delay = min(3600, failure?.retryAfter ?? pow(2, Double(attempts - 1)))
                try await store.markFailed(id: row.id, attempts: attempts, nextAttemptAt: now().addingTimeInterval(delay),
                                           error: "\(error)", giveUp: giveUp, now: now())
                logger.warning("Delivery failed", metadata: ["message_id": "\(row.id)", "attempt": "\(attempts)",
                                                             "gave_up": "\(giveUp)", "error": "\(error)"])
            }
        }
        return due.count
    }
}
