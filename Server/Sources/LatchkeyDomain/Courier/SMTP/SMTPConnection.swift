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

    /// Connects to the relay, with TLS from the first byte when `tls` is given.
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
    func command(_ line: String, step: String? = nil) async throws -> SMTPReply {
        try await write(line + "\r\n")
        return try await reply(step: step ?? String(line.prefix(while: { $0 != " " && $0 != ":" })))
    }

    /// Writes text as it is (the message's data is already CRLF and dot-stuffed).
    /// - Throws: why the connection ended when it has (a TLS handshake that failed says more than
    ///   the write's "closed channel"), else the write's error.
    func write(_ text: String) async throws {
        var buffer = channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        do { try await channel.writeAndFlush(buffer).get() } catch {
            let handler = self.handler
            throw try await channel.eventLoop.submit { handler.value.failureReason }.get() ?? error
        }
    }

    /// Puts TLS under the conversation, after the relay's 220 to STARTTLS.
    func startTLS(_ context: NIOSSLContext) async throws {
        let channel = self.channel, serverName = Self.serverHostname(endpoint.host)
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName),
                                                           position: .first)
        }.get()
    }

    /// Closes the connection (without QUIT).
    func close() async {
        try? await channel.close().get()
    }
}
