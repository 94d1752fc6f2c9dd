import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Where the courier delivers messages. A thrown error means "retry later".
public protocol MessageChannel: Sendable {
    func deliver(_ message: OutgoingMessage) async throws
}

/// Development default: prints each message, codes and links included, to the log.
public struct LogChannel: MessageChannel {
    package let logger: Logger
    public init(logger: Logger) { self.logger = logger }
    public func deliver(_ message: OutgoingMessage) async throws {
        logger.notice("\(message.channel.rawValue) to \(message.to): \(message.subject)\n\(message.body)",
                      metadata: ["message_id": "\(message.id)", "template": "\(message.template)"])
    }
}

/// Appends each message as one JSON line to a file.
public actor FileChannel: MessageChannel {
    package let path: String
    public init(path: String) { self.path = path }
    public func deliver(_ message: OutgoingMessage) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let line = try encoder.encode(message) + Data("\n".utf8)
        if !FileManager.default.fileExists(atPath: path) {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
    }
}

/// POSTs each message as JSON to an issuer's endpoint; any non-2xx answer, and one not read
/// whole within 10 seconds, is retried. The
/// `Idempotency-Key` header (the message id) lets the receiver drop repeats.
public struct WebhookChannel: MessageChannel {
    package let url: String
    package let client: HTTPClient

    public struct DeliveryError: Error, CustomStringConvertible {
        public let status: UInt
        public var description: String { "webhook answered HTTP \(status)" }
    }

    public init(url: String, client: HTTPClient = .shared) {
        self.url = url
        self.client = client
    }

    public func deliver(_ message: OutgoingMessage) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: message.id)
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(message)))
        let (response, _) = try await HTTPProviderChannel.exchange(request, client: client, timeoutSeconds: 10)
        guard (200..<300).contains(response.status.code) else { throw DeliveryError(status: response.status.code) }
    }
}
