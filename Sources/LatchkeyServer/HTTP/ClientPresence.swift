import NIOCore
import Synchronization

/// Whether the client of a connection is still there to read an answer. Hummingbird does not
/// cancel a handler when its client goes, so a login storm's hashes would run for clients that
/// gave up waiting (their timeout closed the connection); `HashGate` asks this before it hashes.
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

    func markGone() { gone.store(true, ordering: .relaxed) }

    /// The presence of the client of the running request, if the request came over a connection
    /// of the server (a request of the router's test client has none).
    @TaskLocal static var current: Link?

    /// A request's way to its connection's presence, looked up only when a hash is about to run
    /// (one hop to the connection's event loop, beside tens of milliseconds of hashing).
    struct Link: Sendable {
        let channel: any Channel

        func presence() async -> ClientPresence? {
            try? await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: ClientPresenceHandler.self).presence
            }.get()
        }
    }
}

/// In each connection's pipeline (after HTTP decoding): marks the connection's `ClientPresence`
/// gone when the client closes its side or the connection goes down. Everything passes on.
final class ClientPresenceHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let presence = ClientPresence()

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { presence.markGone() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        presence.markGone()
        context.fireChannelInactive()
    }
}
