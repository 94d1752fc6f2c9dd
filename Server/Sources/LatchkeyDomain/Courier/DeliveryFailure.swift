import Foundation

/// How a channel reports a refused or failed delivery, so the courier knows whether to try again.
///
/// Any other error a channel throws (a dropped connection, a timeout) counts as transient.
public struct DeliveryFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether trying again can help.
    public enum Kind: String, Sendable {
        /// Worth retrying: a relay's 4xx reply, a provider's 429 or 5xx, a lost connection.
        case transient
        /// Final: a relay's 5xx reply, a provider's other 4xx. Recorded once, never retried.
        case permanent
    }

    public var kind: Kind
    /// The receiver's answer as recorded on the outbox row and shown to operators (a relay's
    /// reply line, a provider's status and the start of its body). Never a message's content.
    public var answer: String
    /// Seconds the receiver asked to wait before the next attempt (`Retry-After`), if it said.
    public var retryAfter: TimeInterval?

    public init(_ kind: Kind, answer: String, retryAfter: TimeInterval? = nil) {
        self.kind = kind
        self.answer = answer
        self.retryAfter = retryAfter
    }

    public var isPermanent: Bool { kind == .permanent }

    public var description: String { "\(kind.rawValue): \(answer)" }
}
