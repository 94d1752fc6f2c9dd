import Foundation
import Mustache

/// The provider call of the `http` channel: one HTTP request per message, its body a Mustache
/// template rendered with the message's values escaped for the body's format. Every setting is
/// optional when read, so each key can be set alone; `validate(key:)` checks the whole when the
/// channel is in use.
public struct HTTPChannelSettings: Codable, Sendable, Equatable {
    /// How the body is encoded, and so how the values put into it are escaped.
    public enum Format: String, Codable, Sendable, CaseIterable {
        /// `application/x-www-form-urlencoded`: values percent-encoded (`To={{to}}&Body={{text}}`).
        case form
        /// `application/json`: values escaped for a JSON string (`{"to": "{{to}}"}`).
        case json

        /// The `Content-Type` of a body in this format, unless a header sets its own.
        public var contentType: String {
            switch self {
            case .form: "application/x-www-form-urlencoded"
            case .json: "application/json"
            }
        }
    }

    /// A request header: a plain `value`, or a `secret` read from a file or the environment
    /// (API tokens), one of the two.
    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String?
        public var secret: SecretReference?
        public init(name: String, value: String? = nil, secret: SecretReference? = nil) {
            self.name = name
            self.value = value
            self.secret = secret
        }
    }

    /// HTTP basic authentication (`Authorization: Basic …`), the password from a file or the environment.
    public struct BasicAuth: Codable, Sendable, Equatable {
        public var username: String?
        public var password: SecretReference?
        public init(username: String? = nil, password: SecretReference? = nil) {
            self.username = username
            self.password = password
        }
    }

    /// The body of the messages of one template (`otp`, `email_verification`), instead of `body`.
    public struct TemplateBody: Codable, Sendable, Equatable {
        public var template: String
        public var body: String
        public init(template: String, body: String) {
            self.template = template
            self.body = body
        }
    }

    /// `POST` (the default), `PUT` or `PATCH`.
    public var method = "POST"
    /// The provider's endpoint: https, or plain http only to a loopback address (a local relay
    /// or sidecar on the same machine), since the request carries tokens, codes and links.
    public var url = ""
    /// The body's encoding: `json` (the default) or `form`.
    public var format = Format.json
    /// Headers sent with every request, besides `Content-Type` and `Idempotency-Key`.
    public var headers: [Header] = []
    /// Basic authentication, when the provider takes it (Twilio: the account SID and auth token).
    public var basicAuth: BasicAuth?
    /// The body template of every message whose template has no entry in `bodies`.
    public var body: String?
    /// Bodies for particular templates.
    public var bodies: [TemplateBody] = []
    /// How long a request may take before it counts as a transient failure.
    public var timeoutSeconds = 10

    /// The methods a provider call may use: each carries a body.
    public static let methods: Set<String> = ["POST", "PUT", "PATCH"]

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case method, url, format, headers, basicAuth, body, bodies, timeoutSeconds
    }

    /// Reads the settings a file gives, the others keeping their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decodeIfPresent(String.self, forKey: .method) ?? method
        url = try container.decodeIfPresent(String.self, forKey: .url) ?? url
        format = try container.decodeIfPresent(Format.self, forKey: .format) ?? format
        headers = try container.decodeIfPresent([Header].self, forKey: .headers) ?? headers
        basicAuth = try container.decodeIfPresent(BasicAuth.self, forKey: .basicAuth)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        bodies = try container.decodeIfPresent([TemplateBody].self, forKey: .bodies) ?? bodies
        timeoutSeconds = try container.decodeIfPresent(Int.self, forKey: .timeoutSeconds) ?? timeoutSeconds
    }

    /// The body template of `template`'s messages: its entry in `bodies`, else `body`.
    public func bodyTemplate(for template: String) -> String? {
        bodies.first { $0.template == template }?.body ?? body
    }

    /// Checks that a request can be made from these settings; `key` is where they were read
    /// (`courier.sms.http`). Secrets are not read here: the channel reads them when it is built.
    /// - Throws: `ConfigurationError` naming the first bad setting: a URL that is not https (or
    ///   http to a loopback address), a
    ///   method without a body, no body, a body template that does not parse or (JSON) does not
    ///   render to JSON, a header without exactly one of `value` and `secret`, basic
    ///   authentication without both parts, a timeout outside 1…300 seconds.
    public func validate(key: String) throws {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()), parsed.host?.isEmpty == false else {
            throw ConfigurationError(key: "\(key).url", message: "The http channel needs the provider's http(s) URL.")
        }
        guard parsed.scheme?.lowercased() == "https" || usesLoopbackHTTP else {
            throw ConfigurationError(key: "\(key).url", message: "The provider's URL must be https: the request carries secrets (plain http only to a loopback address).")
        }
        guard Self.methods.contains(method) else {
            throw ConfigurationError(key: "\(key).method", message: "Must be one of \(Self.methods.sorted().joined(separator: ", ")).")
        }
        guard body != nil else {
            throw ConfigurationError(key: "\(key).body", message: "The http channel needs a body template for its messages.")
        }
        try HTTPProviderChannel.Body.check(body ?? "", format: format, key: "\(key).body")
        for (index, entry) in bodies.enumerated() {
            try HTTPProviderChannel.Body.check(entry.body, format: format, key: "\(key).bodies[\(index)].body")
        }
        for (index, header) in headers.enumerated() {
            let at = "\(key).headers[\(index)]"
            guard !header.name.isEmpty, header.name.allSatisfy(Self.isTokenCharacter) else {
                throw ConfigurationError(key: "\(at).name", message: "A header name is letters, digits and !#$%&'*+-.^_`|~.")
            }
            guard (header.value == nil) != (header.secret == nil) else {
                throw ConfigurationError(key: at, message: "Give the header a value or a secret ({ file: PATH } or { env: NAME }), one of the two.")
            }
            if let value = header.value, value.contains(where: { $0 == "\r" || $0 == "\n" }) {
                throw ConfigurationError(key: "\(at).value", message: "A header value is one line.")
            }
        }
        if let basicAuth {
            guard let username = basicAuth.username, !username.isEmpty, !username.contains(":") else {
                throw ConfigurationError(key: "\(key).basicAuth.username", message: "Basic authentication needs a username without ':'.")
            }
            guard basicAuth.password != nil else {
                throw ConfigurationError(key: "\(key).basicAuth.password", message: "Basic authentication needs a password ({ file: PATH } or { env: NAME }).")
            }
        }
        guard (1...300).contains(timeoutSeconds) else {
            throw ConfigurationError(key: "\(key).timeoutSeconds", message: "Must be between 1 and 300 seconds.")
        }
    }

    /// Whether `url` is plain http to this machine (`localhost`, 127.0.0.0/8, `::1`): allowed,
    /// with a warning at start, for a relay or sidecar that forwards over TLS itself.
    public var usesLoopbackHTTP: Bool {
        guard let parsed = URL(string: url), parsed.scheme?.lowercased() == "http", let host = parsed.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// RFC 9110's `tchar`, the characters of a header name.
    private static func isTokenCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+-.^_`|~".contains(character))
    }
}

extension HTTPChannelSettings: SettingSample {
    package static var settingSample: Self { Self() }
}

extension HTTPChannelSettings.Header: SettingSample {
    package static var settingSample: Self { Self(name: "", value: "", secret: .settingSample) }
}

extension HTTPChannelSettings.BasicAuth: SettingSample {
    package static var settingSample: Self { Self(username: "", password: .settingSample) }
}

extension HTTPChannelSettings.TemplateBody: SettingSample {
    package static var settingSample: Self { Self(template: "", body: "") }
}
