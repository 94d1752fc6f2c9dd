import Crypto
import Foundation

/// An email or SMS as a channel delivers it (DESIGN §9's webhook payload).
public struct OutgoingMessage: Codable, Sendable, Equatable {
    public enum Channel: String, Codable, Sendable { case email, sms }
    public var id: String
    public var channel: Channel
    public var to: String
    public var template: String
    public var subject: String
    /// The plain-text body (an SMS's whole text).
    public var body: String
    /// The HTML body of an email, sent beside the text one; nil for SMS.
    public var html: String?
    /// The language the message was written in (`de`), from the customer's preference.
    public var language: String?
    public var data: [String: String]

    public init(id: String = SecureRandom.identifier(), channel: Channel, to: String, template: String, subject: String,
                body: String, html: String? = nil, language: String? = nil, data: [String: String]) {
        self.id = id
        self.channel = channel
        self.to = to
        self.template = template
        self.subject = subject
        self.body = body
        self.html = html
        self.language = language
        self.data = data
    }
}

/// Seals message bodies for the outbox with AES-GCM under a key derived from the pepper, so the
/// links and codes they carry are never stored in plain form.
public struct OutboxCipher: Sendable {
    private let key: SymmetricKey
    /// Keys of previous peppers, so messages sealed before a rotation are still delivered.
    private let previousKeys: [SymmetricKey]

    public init(pepper: SymmetricKey, previousPeppers: [SymmetricKey] = []) {
        key = Self.key(pepper)
        previousKeys = previousPeppers.map(Self.key)
    }

    private static func key(_ pepper: SymmetricKey) -> SymmetricKey {
        PepperPurpose.outbox.key(from: pepper)
    }

    /// What is sealed: everything a message carries that may hold a link or a code. `html` and
    /// `language` are absent from rows written before they existed.
    private struct Payload: Codable {
        var body: String
        var html: String?
        var language: String?
        var data: [String: String]
    }

    /// The outbox row for a message, due at `now`.
    public func seal(_ message: OutgoingMessage, now: Date) throws -> OutboxMessage {
        let plain = try JSONEncoder().encode(Payload(body: message.body, html: message.html, language: message.language, data: message.data))
        let sealed = try AES.GCM.seal(plain, using: key).combined ?? Data()
        return OutboxMessage(id: message.id, channel: message.channel.rawValue, recipient: message.to,
                             template: message.template, subject: message.subject,
                             sealedPayload: sealed.base64EncodedString(), createdAt: now, nextAttemptAt: now)
    }

    /// The message an outbox row holds; nil when its payload is gone or cannot be opened.
    public func open(_ row: OutboxMessage) -> OutgoingMessage? {
        guard let channel = OutgoingMessage.Channel(rawValue: row.channel), let sealed = row.sealedPayload,
              let combined = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: combined),
              let plain = ([key] + previousKeys).lazy.compactMap({ try? AES.GCM.open(box, using: $0) }).first,
              let payload = try? JSONDecoder().decode(Payload.self, from: plain)
        else { return nil }
        return OutgoingMessage(id: row.id, channel: channel, to: row.recipient, template: row.template,
                               subject: row.subject, body: payload.body, html: payload.html, language: payload.language,
                               data: payload.data)
    }
}
