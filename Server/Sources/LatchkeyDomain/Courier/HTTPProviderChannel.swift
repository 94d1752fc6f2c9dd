import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Sends each message as one request to a provider's API (an SMS provider, a mail API): the
/// method, URL and headers of `HTTPChannelSettings`, the body rendered from its template for the
/// message's template. `Idempotency-Key` carries the message's id, so a provider that honours it
/// drops a repeat after a lost answer.
///
/// The answer decides what the courier does: a 2xx is delivered; a 408, 425, 429 or 5xx is
/// transient and tried again, after the provider's `Retry-After` when it gave one; any other
/// status, a 3xx included (redirects are never followed: the target would receive the secret
/// headers and the body), is a final refusal, recorded with the status and the start of the
/// provider's answer with the message's values replaced. A network error or a request that does
/// not end, its answer read, within `timeoutSeconds` is transient.
public struct HTTPProviderChannel: MessageChannel {
    package let settings: HTTPChannelSettings
    /// The headers of every request, secrets read, `Authorization` included.
    package let headers: HTTPHeaders
    /// The body templates: the default one, and one per template of `settings.bodies`.
    package let body: Body
    package let bodies: [String: Body]
    package let issuer: String
    package let client: HTTPClient
    package let now: @Sendable () -> Date

    /// How much of a refusing provider's answer is kept on the outbox row.
    package static let answerPrefixBytes = 200

    /// A channel for `settings` (read at `key`, `courier.sms.http`); `issuer` is the `{{issuer}}`
    /// of the body templates. A plain-http loopback URL is warned about on `logger`.
    /// - Throws: `ConfigurationError` naming the setting when the settings are invalid or a secret
    ///   (a header's, the basic authentication's password) cannot be read.
    public init(settings: HTTPChannelSettings, key: String, issuer: String, client: HTTPClient = HTTPProviderChannel.sharedClient,
                environment: [String: String] = ProcessInfo.processInfo.environment, now: @escaping @Sendable () -> Date = Date.init,
                logger: Logger = Logger(label: "latchkey.courier")) throws {
        try settings.validate(key: key)
        if settings.usesLoopbackHTTP {
            logger.warning("\(key).url is plain http (\(settings.url)): tokens, codes and links cross it unencrypted. Use https unless a local relay encrypts them onward.")
        }
        var headers = HTTPHeaders()
        for (index, header) in settings.headers.enumerated() {
            let value = try header.secret?.read(key: "\(key).headers[\(index)].secret", environment: environment) ?? header.value ?? ""
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw ConfigurationError(key: "\(key).headers[\(index)].secret", message: "A header's secret is one line.")
            }
            headers.add(name: header.name, value: value)
        }
        if let auth = settings.basicAuth, let username = auth.username, let password = auth.password {
            let secret = try password.read(key: "\(key).basicAuth.password", environment: environment)
            headers.replaceOrAdd(name: "Authorization", value: "Basic " + Data("\(username):\(secret)".utf8).base64EncodedString())
        }
        if !headers.contains(name: "Content-Type") {
            headers.add(name: "Content-Type", value: settings.format.contentType + (settings.format == .form ? "; charset=utf-8" : ""))
        }
        self.settings = settings
        self.headers = headers
        self.body = try Body(settings.body ?? "", format: settings.format)
        self.bodies = try Dictionary(settings.bodies.map { ($0.template, try Body($0.body, format: settings.format)) },
                                     uniquingKeysWith: { first, _ in first })
        self.issuer = issuer
        self.client = client
        self.now = now
    }

    /// Sends `message`.
    /// - Throws: `DeliveryFailure` for a refusing answer (permanent or transient, as above);
    ///   AsyncHTTPClient's errors, which count as transient, when the provider cannot be reached
    ///   or does not answer in time.
    public func deliver(_ message: OutgoingMessage) async throws {
        var request = HTTPClientRequest(url: settings.url)
        request.method = HTTPMethod(rawValue: settings.method)
        request.headers = headers
        request.headers.replaceOrAdd(name: "Idempotency-Key", value: message.id)
        let template = bodies[message.template] ?? body
        request.body = .bytes(ByteBuffer(string: template.render(Body.values(of: message, issuer: issuer))))
        let (response, answer) = try await Self.exchange(request, client: client, timeoutSeconds: settings.timeoutSeconds)
        // Redacted before the excerpt is cut, so a value the cut would split is still found.
        if let failure = Self.failure(status: response.status, headers: response.headers, body: answer, now: now(),
                                      redacting: message) {
            throw failure
        }
    }

    /// What an answer means for the courier: nil for a 2xx, else the failure to record, its
    /// excerpt of the body with every form of the `redacting` message's values replaced first.
    package static func failure(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer, now: Date,
                                redacting message: OutgoingMessage? = nil) -> DeliveryFailure? {
        let code = Int(status.code)
        guard !(200..<300).contains(code) else { return nil }
        let text = String(buffer: body)
        let prefix = String(decoding: Array((message?.redacting(text) ?? text).utf8.prefix(answerPrefixBytes)), as: UTF8.self)
        let excerpt = prefix.split(whereSeparator: \.isNewline).joined(separator: " ")
        let answer = "HTTP \(code) \(status.reasonPhrase)" + (excerpt.isEmpty ? "" : ": \(excerpt)")
        guard [408, 425, 429].contains(code) || code >= 500 else { return DeliveryFailure(.permanent, answer: answer) }
        return DeliveryFailure(.transient, answer: answer, retryAfter: headers.first(name: "Retry-After").flatMap { retryAfter($0, now: now) })
    }

    /// The longest wait a `Retry-After` asks for that is believed.
    package static let longestRetryAfter: TimeInterval = 86_400

    /// Seconds to wait from `now` by a `Retry-After` value (RFC 9110 §10.2.3): a number of
    /// seconds or an HTTP-date, at most `longestRetryAfter`; nil when it is neither. A date in
    /// the past is no wait.
    package static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let seconds = UInt(value) { return TimeInterval(min(seconds, UInt(longestRetryAfter))) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return min(longestRetryAfter, max(0, date.timeIntervalSince(now)))
    }
}
