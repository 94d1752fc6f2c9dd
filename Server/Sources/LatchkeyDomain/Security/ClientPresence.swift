import Synchronization

/// Whether the client of a connection is still there to read an answer. Hummingbird does not
/// cancel a handler when its client goes, so a login storm's hashes would run for clients that
/// gave up waiting (their timeout closed the connection); `HashGate` asks this before it hashes,
/// through the caller's `ClientConnection`.
///
/// The client is gone once its side of the connection is closed (it sent FIN: a timeout or a
/// cancelled request closes the socket) or the connection is down. A client that half-closes
/// after its request and still waits for the answer is taken as gone too, as nginx takes it
/// (its 499): HTTP clients do not do that, and the answer it gets is the retryable `overloaded`.
public final class ClientPresence: Sendable {
    private let gone = Atomic(false)

    public init() {}

    /// Whether the client has left.
    public var isGone: Bool { gone.load(ordering: .relaxed) }

    /// Marks the client gone (the connection's handler does, when its side closes).
    public func markGone() { gone.store(true, ordering: .relaxed) }
}
