import NIOCore
import NIOPosix
import NIOSSL

/// One TCP connection to a mail relay and its command/reply exchange: a line out, a reply back,
/// each within its time. TLS is there from the start (`tls`) or added by `startTLS` after the
/// relay agreed to STARTTLS. What the session says is in `SMTPConnection+Session.swift`.
struct SMTPConnection: Sendable {
    let channel: any Channel
    private let handler: NIOLoopBound<SMTPReplyHandler>

    /// Where the relay is and how long each step may take.
    struct Endpoint: Sendable {
        var host: String
        var port: Int
        var connectTimeout: TimeAmount
        var commandTimeout: TimeAmount
        var dataTimeout: TimeAmount
    }

    let endpoint: Endpoint

    /// Connects to the relay, with TLS from the first byte when `tls` is given. The TCP connection
    /// takes at most `endpoint.connectTimeout`; the TLS handshake is part of the greeting's wait
    /// (the greeting comes through TLS), so `commandTimeout` bounds it.
    /// - Throws: the connection's error (refused, unreachable, timed out).
    static func connect(to endpoint: Endpoint, tls: NIOSSLContext?,
                        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> SMTPConnection {
        let serverName = serverHostname(endpoint.host)
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(endpoint.connectTimeout)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPReplyHandler())
                }
            }
            .connect(host: endpoint.host, port: endpoint.port).get()
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: SMTPReplyHandler.self), eventLoop: channel.eventLoop)
        }.get()
        return SMTPConnection(channel: channel, handler: handler, endpoint: endpoint)
    }

    private init(channel: any Channel, handler: NIOLoopBound<SMTPReplyHandler>, endpoint: Endpoint) {
        self.channel = channel
        self.handler = handler
        self.endpoint = endpoint
    }

    /// The name checked against the relay's certificate and sent as SNI; nil for an IP address,
    /// which is then checked against the certificate's IP addresses.
    static func serverHostname(_ host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    var isActive: Bool { channel.isActive }

    /// The relay's next reply (the greeting, or the answer to what was sent).
    /// - Throws: `SMTPError.timeout(step)` past `timeout` (the connection is closed), or why the connection ended.
    func reply(step: String, timeout: TimeAmount? = nil) async throws -> SMTPReply {
        let handler = self.handler, eventLoop = channel.eventLoop, timeout = timeout ?? endpoint.commandTimeout
        return try await eventLoop.flatSubmit {
            handler.value.nextReply(step: step, timeout: timeout, on: eventLoop)
        }.get()
    }

    /// Sends one command line and answers the relay's reply. `step` names the command in errors,
    /// so a credential sent in a line is never quoted.
    func command(_ line: String, step: String? = nil, timeout: TimeAmount? = nil) async throws -> SMTPReply {
        let step = step ?? String(line.prefix(while: { $0 != " " && $0 != ":" }))
        try await send(line + "\r\n", step: step, timeout: timeout ?? endpoint.commandTimeout)
        return try await reply(step: step, timeout: timeout)
    }

    /// Writes text as it is (the message's data is already CRLF and dot-stuffed), announcing the
    /// one reply it asks for; a write that has not gone out within `timeout` (a relay that stopped
    /// reading) closes the connection.
    /// - Throws: `SMTPError.timeout(step)`, why the connection ended when it has (a TLS handshake
    ///   that failed says more than the write's "closed channel"), else the write's error.
    func send(_ text: String, step: String, timeout: TimeAmount) async throws {
        var buffer = channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        let handler = self.handler, channel = self.channel
        do {
            try await channel.eventLoop.flatSubmit {
                handler.value.expectReply()
                let written = channel.writeAndFlush(buffer)
                let timer = channel.eventLoop.scheduleTask(in: timeout) { handler.value.abort(SMTPError.timeout(step)) }
                written.whenComplete { _ in timer.cancel() }
                return written
            }.get()
        } catch {
            throw try await channel.eventLoop.submit { handler.value.failureReason }.get() ?? error
        }
    }

    /// Puts TLS under the conversation, after the relay's 220 to STARTTLS. The handshake is part
    /// of the next command's time: EHLO's line is written once it is done (`commandTimeout`).
    /// - Throws: `SMTPError.protocolViolation` when the relay sent anything after its 220 in the
    ///   clear (someone in between may have written it); the handshake's error.
    func startTLS(_ context: NIOSSLContext) async throws {
        let channel = self.channel, handler = self.handler, serverName = Self.serverHostname(endpoint.host)
        try await channel.eventLoop.submit {
            // Checked and added in one event-loop turn: every byte after this goes through TLS.
            guard handler.value.isDrained else {
                throw SMTPError.protocolViolation("the relay sent more after its 220 to STARTTLS, before TLS began")
            }
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName),
                                                           position: .first)
        }.get()
    }

    /// Closes the connection (without QUIT).
    func close() async {
        try? await channel.close().get()
    }
}
