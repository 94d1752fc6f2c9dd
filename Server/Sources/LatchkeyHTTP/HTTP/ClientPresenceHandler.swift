import LatchkeyDomain
import NIOCore

/// A request's way to its connection's `ClientPresence`, looked up only when a hash is about to
/// run (one hop to the connection's event loop, beside tens of milliseconds of hashing). The edge
/// puts it in the request's `Caller`.
package struct ChannelConnection: ClientConnection {
    package let channel: any Channel

    package func presence() async -> ClientPresence? {
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ClientPresenceHandler.self).presence
        }.get()
    }
}

/// In each connection's pipeline (after HTTP decoding): marks the connection's `ClientPresence`
/// gone when the client closes its side or the connection goes down. Everything passes on.
package final class ClientPresenceHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = NIOAny
    package let presence = ClientPresence()

    package init() {}

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { presence.markGone() }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        presence.markGone()
        context.fireChannelInactive()
    }
}
