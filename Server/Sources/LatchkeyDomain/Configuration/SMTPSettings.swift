import Foundation

/// The mail relay of the `smtp` channel (docs/operations.md, "Email through a relay").
///
/// Every field is optional or defaulted, so a file may set any one of them alone; `validate(key:)`
/// checks what the channel needs once the relay is chosen. The password is never a plain value of
/// the file: it is read from a file or the environment (`SecretReference`).
public struct SMTPSettings: Codable, Sendable, Equatable {
    /// How the connection to the relay is protected.
    public enum Security: String, Codable, Sendable, CaseIterable {
        /// Plain connection upgraded with STARTTLS before anything else is said (port 587). A relay
        /// that does not offer STARTTLS is refused: no mail goes out in the clear.
        case starttls
        /// TLS from the first byte (port 465, RFC 8314).
        case tls
    }

    /// The SASL mechanism used to log in to the relay.
    public enum Authentication: String, Codable, Sendable, CaseIterable {
        /// PLAIN when the relay offers it, else LOGIN.
        case auto
        case plain
        case login
    }

    /// The envelope and header sender: `address`, and a display `name` (RFC 2047 encoded when not ASCII).
    public struct Sender: Codable, Sendable, Equatable {
        public var address: String?
        public var name: String?
        public init(address: String? = nil, name: String? = nil) {
            self.address = address
            self.name = name
        }
    }

    /// The relay's host name (checked against its certificate) or IP address.
    public var host: String?
    /// The relay's port; unset, 587 for `starttls` and 465 for `tls`.
    public var port: Int?
    public var security: Security = .starttls
    /// A PEM file of the certificate authorities the relay's certificate must chain to, in place
    /// of the system's roots.
    public var caFile: String?
    /// Accepts any certificate the relay shows. For a test relay only: the server warns at start
    /// and on each connection.
    public var insecureSkipVerification = false
    /// The login name; with `password`, the channel authenticates (AUTH) after TLS.
    public var username: String?
    /// The password, from a file or an environment variable.
    public var password: SecretReference?
    public var auth: Authentication = .auto
    public var from: Sender?
    /// The name the client gives in EHLO; unset, the domain of `from.address`.
    public var heloName: String?
    /// How long an idle connection is kept for the next message (RSET between messages); 0 closes
    /// the connection after each message.
    public var idleSeconds = 30
    /// The TCP connection.
    public var connectTimeoutSeconds = 10
    /// The greeting, and each command: its line written and the relay's reply, each on its own.
    /// A TLS handshake is part of the step it precedes: the greeting's with `tls`, the second
    /// EHLO's (its line goes out once TLS is up) after STARTTLS.
    public var commandTimeoutSeconds = 30
    /// The message's data written and the relay's reply to its end, together.
    public var dataTimeoutSeconds = 120

    public init() {}

    /// The port used: `port`, or the security's standard port.
    public var resolvedPort: Int { port ?? (security == .tls ? 465 : 587) }

    /// The name said in EHLO.
    public var resolvedHeloName: String {
        heloName ?? from?.address.flatMap { $0.split(separator: "@").last.map(String.init) } ?? "localhost"
    }

    private enum CodingKeys: String, CodingKey {
        case host, port, security, caFile, insecureSkipVerification, username, password, auth, from, heloName,
             idleSeconds, connectTimeoutSeconds, commandTimeoutSeconds, dataTimeoutSeconds
    }

    /// Reads the settings, each missing one at its default (a plain `password` value is refused
    /// before, as a setting that must be a mapping).
    /// - Throws: `DecodingError` for a wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SMTPSettings()
        host = try container.decodeIfPresent(String.self, forKey: .host)
        port = try container.decodeIfPresent(Int.self, forKey: .port)
        security = try container.decodeIfPresent(Security.self, forKey: .security) ?? defaults.security
        caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
        insecureSkipVerification = try container.decodeIfPresent(Bool.self, forKey: .insecureSkipVerification) ?? false
        username = try container.decodeIfPresent(String.self, forKey: .username)
        password = try container.decodeIfPresent(SecretReference.self, forKey: .password)
        auth = try container.decodeIfPresent(Authentication.self, forKey: .auth) ?? defaults.auth
        from = try container.decodeIfPresent(Sender.self, forKey: .from)
        heloName = try container.decodeIfPresent(String.self, forKey: .heloName)
        idleSeconds = try container.decodeIfPresent(Int.self, forKey: .idleSeconds) ?? defaults.idleSeconds
        connectTimeoutSeconds = try container.decodeIfPresent(Int.self, forKey: .connectTimeoutSeconds) ?? defaults.connectTimeoutSeconds
        commandTimeoutSeconds = try container.decodeIfPresent(Int.self, forKey: .commandTimeoutSeconds) ?? defaults.commandTimeoutSeconds
        dataTimeoutSeconds = try container.decodeIfPresent(Int.self, forKey: .dataTimeoutSeconds) ?? defaults.dataTimeoutSeconds
    }

    /// Checks that the relay can be used; `key` is where the settings were read (`courier.email.smtp`).
    /// - Throws: `ConfigurationError` naming the first missing or bad setting.
    public func validate(key: String) throws {
        func require(_ condition: Bool, _ field: String, _ message: String) throws {
            if !condition { throw ConfigurationError(key: "\(key).\(field)", message: message) }
        }
        let host = self.host ?? ""
        try require(!host.isEmpty && host.allSatisfy { $0.isASCII && !$0.isWhitespace && $0 != "/" },
                    "host", "The smtp channel needs the relay's host name or IP address.")
        try require(port.map { (1...65_535).contains($0) } ?? true, "port", "Must be a port number (1-65535).")
        try require(from?.address.map(Self.isAddress) ?? false, "from.address",
                    "The smtp channel needs the sender's address (local@domain, ASCII).")
        try require(!(from?.name ?? "").contains(where: \.isNewline), "from.name", "Must be one line.")
        try require(heloName.map { !$0.isEmpty && $0.allSatisfy { $0.isASCII && !$0.isWhitespace } } ?? true,
                    "heloName", "Must be a host name (ASCII, no spaces).")
        try require(!(caFile != nil && insecureSkipVerification), "insecureSkipVerification",
                    "Either check the relay against caFile or skip verification, not both.")
        try require((username == nil) == (password == nil), username == nil ? "username" : "password",
                    "username and password go together.")
        try require(auth == .auto || username != nil, "username", "auth: \(auth.rawValue) needs a username and a password.")
        try require(!(username ?? "").contains(where: \.isNewline), "username", "Must be one line.")
        try require((0...3600).contains(idleSeconds), "idleSeconds", "Must be 0 (no reuse) to 3600.")
        try require(Self.timeoutRange.contains(connectTimeoutSeconds), "connectTimeoutSeconds", "Must be 1 to 600.")
        try require(Self.timeoutRange.contains(commandTimeoutSeconds), "commandTimeoutSeconds", "Must be 1 to 600.")
        try require(Self.timeoutRange.contains(dataTimeoutSeconds), "dataTimeoutSeconds", "Must be 1 to 600.")
    }

    /// The seconds a timeout may be: at least one, and short enough that a step that hangs is
    /// noticed (and far below what a `TimeAmount` holds).
    static let timeoutRange = 1...600

    /// Whether `text` is an address the client sends as is: `local@domain`, printable ASCII
    /// without spaces, angle brackets or line breaks (the client does not speak SMTPUTF8).
    public static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && text.count <= 254
            && text.unicodeScalars.allSatisfy { (33...126).contains($0.value) && !"<>()[]\\,;:\"".unicodeScalars.contains($0) }
    }
}

extension SMTPSettings: SettingSample {
    package static var settingSample: Self {
        var sample = Self()
        sample.host = ""
        sample.port = 0
        sample.caFile = ""
        sample.username = ""
        sample.password = .settingSample
        sample.from = Sender(address: "", name: "")
        sample.heloName = ""
        return sample
    }
}
