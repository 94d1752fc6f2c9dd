import NIOCore

/// The last handler of a relay connection's pipeline: splits what the relay sends into lines,
/// assembles replies, and hands each to the one waiting for it (the client sends one command at a
/// time, so at most one waits). A reply nobody waits for yet is kept for the next wait. Any error,
/// the connection's end or a wait's timeout fails the waiting reply and every later one.
/// Lives on the channel's event loop.
final class SMTPReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// A line longer than this (RFC 5321 §4.5.3.1.5 allows 512) ends the connection.
    static let maximumLineBytes = 4096

    private var buffer = ByteBuffer()
    private var parser = SMTPReplyParser()
    private var received: [SMTPReply] = []
    private var waiting: (promise: EventLoopPromise<SMTPReply>, timeout: Scheduled<Void>)?
    private var failure: (any Error)?
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        do {
            while let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let length = end - buffer.readerIndex
                var line = buffer.readString(length: length) ?? ""
                buffer.moveReaderIndex(forwardBy: 1)
                if line.hasSuffix("\r") { line.removeLast() }
                if let reply = try parser.consume(line) { try deliver(reply) }
            }
            guard buffer.readableBytes <= Self.maximumLineBytes else {
                throw SMTPError.protocolViolation("the relay sent an overlong line")
            }
            buffer.discardReadBytes()
        } catch {
            fail(error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SMTPError.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    /// The next reply, failed with `SMTPError.timeout(step)` (and the connection closed) when it
    /// does not come within `timeout`.
    func nextReply(step: String, timeout: TimeAmount, on eventLoop: any EventLoop) -> EventLoopFuture<SMTPReply> {
        if !received.isEmpty { return eventLoop.makeSucceededFuture(received.removeFirst()) }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let timer = eventLoop.scheduleTask(in: timeout) {
            bound.value.fail(SMTPError.timeout(step))
            bound.value.context?.close(promise: nil)
        }
        waiting = (promise, timer)
        return promise.futureResult
    }

    /// Why the connection failed, if it did (a TLS handshake's error, the relay closing).
    var failureReason: (any Error)? { failure }

    /// Hands `reply` to the one waiting, or keeps it for the next wait; a relay that keeps
    /// talking unasked (more than a few replies ahead) breaks the protocol.
    private func deliver(_ reply: SMTPReply) throws {
        guard let waiting else {
            guard received.count < 8 else { throw SMTPError.protocolViolation("the relay sent replies nobody asked for") }
            received.append(reply)
            return
        }
        self.waiting = nil
        waiting.timeout.cancel()
        waiting.promise.succeed(reply)
    }

    private func fail(_ error: any Error) {
        if failure == nil { failure = error }
        guard let waiting else { return }
        self.waiting = nil
        waiting.timeout.cancel()
        waiting.promise.fail(failure ?? error)
    }
}
