import Crypto
import Foundation
import LatchkeyDomain
import NIOCore
import NIOPosix
import NIOSSL
import X509

/// A scripted mail relay for the smtp channel's tests: TLS from the first byte on a self-signed
/// certificate (or, started with `startTLS`, plaintext until STARTTLS, whose 220 can carry injected
/// bytes as a man in the middle would send them before TLS begins), EHLO offering AUTH PLAIN and LOGIN, 250 to everything else unless a reply is
/// queued for a command (`queue("RCPT", "550 …")`; `END` is the end of a message's data). It keeps
/// every line it receives per connection and each message's data as DATA delivers it (dot-stuffing
/// undone), and can drop its connections.
final class SMTPTestRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [[String]] = []
    private var replies: [String: [String]] = [:]
    private var channels: [any Channel] = []
    private var received: [String] = []
    private var server: (any Channel)?
    private var tls: NIOSSLContext?
    private var injected: String?

    var port: Int { server?.localAddress?.port ?? 0 }
    /// Each connection's lines, in the order the connections were opened.
    var transcript: [[String]] { lock.withLock { lines } }
    /// Each message's data as the relay stored it.
    var messages: [String] { lock.withLock { received } }

    /// - Parameter startTLS: plaintext until STARTTLS; the 220 to it is followed, in the same
    ///   write, by `startTLS`'s text (nothing when it is empty).
    static func start(startTLS: String? = nil) async throws -> SMTPTestRelay {
        let relay = SMTPTestRelay()
        relay.injected = startTLS
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date() - 60,
            notValidAfter: Date() + 3600, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("localhost")]) }, issuerPrivateKey: .init(key))
        let tls = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(try certificate.serializeAsPEM().pemString.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))))
        relay.tls = tls
        relay.server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let index = relay.opened(channel)
                    if startTLS == nil { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(Session(relay: relay, connection: index))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return relay
    }

    /// The settings of an smtp channel that sends to this relay.
    func settings(idleSeconds: Int = 30) -> SMTPSettings {
        var settings = SMTPSettings()
        settings.host = "localhost"
        settings.port = port
        settings.security = injected == nil ? .tls : .starttls
        settings.insecureSkipVerification = true
        settings.from = .init(address: "no-reply@wallet.example", name: "Wallet")
        settings.idleSeconds = idleSeconds
        settings.commandTimeoutSeconds = 5
        return settings
    }

    /// Answers `reply` to the next `command` (`MAIL`, `RCPT`, `DATA`, `END`, `AUTH`, `RSET`) instead of 250.
    func queue(_ command: String, _ reply: String) { lock.withLock { replies[command, default: []].append(reply) } }

    /// Closes every connection, as a relay ending idle sessions does.
    func dropConnections() async {
        for channel in lock.withLock({ channels }) { try? await channel.close().get() }
    }

    /// Writes `text` (and CRLF) on every connection unasked, as a relay (or someone in between) might.
    func announce(_ text: String) async {
        for channel in lock.withLock({ channels }) { try? await channel.writeAndFlush(ByteBuffer(string: text + "\r\n")).get() }
    }

    func stop() async { try? await server?.close().get() }

    private func opened(_ channel: any Channel) -> Int {
        lock.withLock {
            channels.append(channel)
            lines.append([])
            return lines.count - 1
        }
    }

    fileprivate func record(_ line: String, connection: Int) { lock.withLock { lines[connection].append(line) } }
    fileprivate func store(_ message: String) { lock.withLock { received.append(message) } }
    fileprivate func reply(to command: String, otherwise: String) -> String {
        lock.withLock { replies[command]?.isEmpty == false ? replies[command]!.removeFirst() : otherwise }
    }

    /// One connection's side of the conversation.
    private final class Session: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let relay: SMTPTestRelay
        let connection: Int
        var pending = ""
        var data: [String]?
        var secured = false

        init(relay: SMTPTestRelay, connection: Int) {
            self.relay = relay
            self.connection = connection
        }

        func channelActive(context: ChannelHandlerContext) {
            send("220 relay.test ESMTP ready", context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            pending += String(buffer: unwrapInboundIn(data))
            while let end = pending.range(of: "\r\n") {
                let line = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                handle(line, context)
            }
        }

        private func handle(_ line: String, _ context: ChannelHandlerContext) {
            if var message = data {
                if line == "." {
                    data = nil
                    relay.store(message.joined(separator: "\r\n"))
                    send(relay.reply(to: "END", otherwise: "250 2.0.0 queued"), context)
                } else {
                    message.append(line.hasPrefix(".") ? String(line.dropFirst()) : line)
                    data = message
                }
                return
            }
            relay.record(line, connection: connection)
            let command = line.prefix { $0 != " " && $0 != ":" }.uppercased()
            switch command {
            case "EHLO" where relay.injected != nil && !secured:
                send("250-relay.test\r\n250 STARTTLS", context)
            case "STARTTLS":
                // The 220 and whatever a man in the middle adds go out in the clear, then TLS begins.
                send("220 2.0.0 ready to start TLS" + (relay.injected.map { $0.isEmpty ? "" : "\r\n" + $0 } ?? ""), context)
                secured = true
                if let tls = relay.tls { try? context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first) }
            case "EHLO": send("250-relay.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME", context)
            case "AUTH": send(relay.reply(to: "AUTH", otherwise: "235 2.7.0 accepted"), context)
            case "QUIT":
                send("221 bye", context)
                context.close(promise: nil)
            case "DATA":
                let reply = relay.reply(to: "DATA", otherwise: "354 go ahead")
                if reply.hasPrefix("354") { data = [] }
                send(reply, context)
            default: send(relay.reply(to: command, otherwise: "250 2.0.0 ok"), context)
            }
        }

        private func send(_ reply: String, _ context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply + "\r\n")), promise: nil)
        }
    }
}
