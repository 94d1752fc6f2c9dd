import Foundation

/// Where outgoing messages go (DESIGN §7): a default channel for every message, which email and
/// SMS may each replace with their own (`email`, `sms`), the templates an issuer overrides, and the
/// retries. A mail relay (`smtp`) carries email only, so it is set under `email`; a provider's API
/// (`http`) is set per kind, since an SMS provider and a mail API take different requests.
public struct CourierSettings: Codable, Sendable, Equatable {
    /// The kinds of channel.
    public enum Channel: String, Codable, Sendable, CaseIterable {
        /// Prints each message, codes and links included, to the log (development).
        case log
        /// Appends each message as a JSON line to `path`.
        case file
        /// POSTs each message as JSON to `url` (DESIGN §9's payload).
        case webhook
        /// Sends email through a mail relay (`courier.email.smtp`).
        case smtp
        /// Calls a provider's API with a templated request (`courier.email.http`, `courier.sms.http`).
        case http
    }

    /// The default channel: `log`, `file` or `webhook`.
    public var channel: Channel = .log
    /// The file of the `file` channel.
    public var path: String?
    /// The URL of the `webhook` channel.
    public var url: String?
    /// Email's own channel, when it is not the default.
    public var email: EmailChannelSettings?
    /// SMS's own channel, when it is not the default.
    public var sms: SMSChannelSettings?
    /// A directory of templates that replace the built-in ones (`<language>/<template>/…`).
    public var templates: String?
    public var maxAttempts = 10
    public var pollIntervalMilliseconds = 500
    /// The longest one delivery attempt may take, however the channel spends it (connecting, TLS,
    /// the relay's or provider's answer); past it the attempt is cancelled and retried later.
    public var attemptTimeoutSeconds = 120
    public init() {}

    /// Room between the end of the last attempt a pass starts and the end of its lease.
    package static let leaseMargin = Duration.seconds(30)

    /// How long a pass holds the messages it claims: two attempts at their longest, and the margin.
    public var leaseSeconds: Int { 2 * attemptTimeoutSeconds + Int(Self.leaseMargin.components.seconds) }

    /// The channel each kind of message goes through and the key its settings were read from.
    public func route(_ kind: OutgoingMessage.Channel) -> (key: String, settings: ChannelRoute) {
        let base = ChannelRoute(channel: channel, path: path, url: url, smtp: nil, http: nil)
        switch kind {
        case .email:
            guard let email else { return ("courier", base) }
            return ("courier.email", ChannelRoute(channel: email.channel ?? channel, path: email.path ?? path, url: email.url ?? url, smtp: email.smtp, http: email.http))
        case .sms:
            guard let sms else { return ("courier", base) }
            return ("courier.sms", ChannelRoute(channel: sms.channel ?? channel, path: sms.path ?? path, url: sms.url ?? url, smtp: nil, http: sms.http))
        }
    }

    /// Checks that each kind's channel has what it needs.
    /// - Throws: `ConfigurationError` naming the first missing or bad setting.
    public func validate() throws {
        if !(1...600).contains(attemptTimeoutSeconds) {
            throw ConfigurationError(key: "courier.attemptTimeoutSeconds", message: "Must be between 1 and 600.")
        }
        if [.smtp, .http].contains(channel) {
            throw ConfigurationError(key: "courier.channel",
                                     message: "smtp and http are set per kind of message: under courier.email or courier.sms.")
        }
        if sms?.channel == .smtp {
            throw ConfigurationError(key: "courier.sms.channel", message: "A mail relay carries email only: use http, webhook, file or log.")
        }
        for kind in [OutgoingMessage.Channel.email, .sms] {
            let (key, route) = route(kind)
            try route.validate(key: key)
        }
    }
}

/// Email's channel: any kind, a mail relay included.
public struct EmailChannelSettings: Codable, Sendable, Equatable {
    /// The kind of channel; unset, the courier's default.
    public var channel: CourierSettings.Channel?
    public var path: String?
    public var url: String?
    /// The relay of the `smtp` channel.
    public var smtp: SMTPSettings?
    /// The mail API call of the `http` channel.
    public var http: HTTPChannelSettings?
    public init() {}
}

/// SMS's channel: any kind but a mail relay.
public struct SMSChannelSettings: Codable, Sendable, Equatable {
    /// The kind of channel; unset, the courier's default.
    public var channel: CourierSettings.Channel?
    public var path: String?
    public var url: String?
    /// The SMS provider call of the `http` channel.
    public var http: HTTPChannelSettings?
    public init() {}
}

extension EmailChannelSettings: SettingSample {
    package static var settingSample: Self { Self() }
}

extension SMSChannelSettings: SettingSample {
    package static var settingSample: Self { Self() }
}

/// One kind's channel, resolved from the courier's settings.
public struct ChannelRoute: Sendable, Equatable {
    public var channel: CourierSettings.Channel
    public var path: String?
    public var url: String?
    public var smtp: SMTPSettings?
    public var http: HTTPChannelSettings?

    /// Checks that the channel has what its kind needs; `key` is where the settings were read.
    /// - Throws: `ConfigurationError` naming the first missing or bad setting.
    public func validate(key: String) throws {
        switch channel {
        case .log: break
        case .file:
            if path == nil { throw ConfigurationError(key: "\(key).path", message: "The file channel needs a path.") }
        case .webhook:
            if url.flatMap(URL.init(string:))?.host == nil {
                throw ConfigurationError(key: "\(key).url", message: "The webhook channel needs an http(s) URL.")
            }
        case .smtp:
            guard let smtp else { throw ConfigurationError(key: "\(key).smtp", message: "The smtp channel needs its relay's settings.") }
            try smtp.validate(key: "\(key).smtp")
        case .http:
            guard let http else { throw ConfigurationError(key: "\(key).http", message: "The http channel needs its request's settings.") }
            try http.validate(key: "\(key).http")
        }
    }
}
