import NIOCore

/// The last handler of a relay connection's pipeline: splits what the relay sends into lines,
/// assembles replies, and hands each to the one waiting for it (the client sends one command at a
/// time, so at most one waits). Only the replies asked for are taken: the greeting, and one for
/// each command announced with `expectReply()` before it is written (a reply that arrives before
/// its wait starts is kept for it). A reply nobody asked for (one slipped in by someone in between,
/// or spoken on an idle connection) breaks the protocol and ends the connection, so it can never
/// answer a later command. Any error, the connection's end or a wait's timeout fails the waiting
/// reply and every later one. Lives on the channel's event loop.
final class SMTPReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// A line longer than this (RFC 5321 §4.5.3.1.5 allows 512) ends the connection.
    static let maximumLineBytes = 4096

    private var buffer = ByteBuffer()
    private var parser = SMTPReplyParser()
    private var received: [SMTPReply] = []
    /// Replies asked for and not yet received: the greeting at first.
    private var expected = 1
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
        let timer = eventLoop.scheduleTask(in: timeout) { bound.value.abort(SMTPError.timeout(step)) }
        waiting = (promise, timer)
        return promise.futureResult
    }

    /// Announces one more reply the client asks for (called before its command is written).
    func expectReply() { expected += 1 }

    /// Whether nothing the relay sent is pending: no reply kept, no partial line, none expected.
    /// Checked before TLS starts, so nothing said in the clear is read as said under TLS.
    var isDrained: Bool { failure == nil && received.isEmpty && buffer.readableBytes == 0 && expected == 0 }

    /// Fails what waits with `error` and closes the connection.
    func abort(_ error: any Error) {
        fail(error)
        context?.close(promise: nil)
    }

    /// Why the connection failed, if it did (a TLS handshake's error, the relay closing).
    var failureReason: (any Error)? { failure }

    /// Hands `reply` to the one waiting, or keeps it for the wait about to start; a reply nobody
    /// asked for breaks the protocol.
    private func deliver(_ reply: SMTPReply) throws {
        guard expected > 0 else { throw SMTPError.protocolViolation("the relay sent a reply nobody asked for") }
        expected -= 1
        guard let waiting else {
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
