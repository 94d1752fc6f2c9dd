/// One reply of a mail relay (RFC 5321 §4.2): a three-digit code and its lines of text.
public struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    /// The text of each line, without the code and its separator.
    public var lines: [String]

    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// 2xx or 3xx: the command was accepted (or the relay waits for more).
    public var isPositive: Bool { (200..<400).contains(code) }
    /// 5xx: the relay refuses for good.
    public var isPermanentFailure: Bool { (500..<600).contains(code) }

    /// The reply as one line, as the outbox records it (at most 300 characters).
    public var description: String {
        let text = lines.filter { !$0.isEmpty }.joined(separator: " ")
        let line = text.isEmpty ? "\(code)" : "\(code) \(text)"
        return line.count > 300 ? String(line.prefix(299)) + "…" : line
    }

    /// The capabilities an EHLO reply announces (every line but the greeting), upper-cased:
    /// `["STARTTLS": [], "AUTH": ["PLAIN", "LOGIN"], …]`.
    public var extensions: [String: [String]] {
        var result: [String: [String]] = [:]
        for line in lines.dropFirst() {
            let words = line.split(separator: " ").map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            result[keyword, default: []].append(contentsOf: words.dropFirst())
        }
        return result
    }
}

/// Assembles replies from the lines a relay sends: `250-first`, `250-next`, `250 last`.
public struct SMTPReplyParser: Sendable {
    /// More lines than this in one reply is taken as a broken relay.
    public static let maximumLines = 100
    private var code: Int?
    private var lines: [String] = []

    public init() {}

    /// Takes one line (without its line break); answers the reply when this line ends one.
    /// - Throws: `SMTPError.protocolViolation` for a line that is not a reply line, a continuation
    ///   with another code, or an endless reply.
    public mutating func consume(_ line: String) throws -> SMTPReply? {
        let characters = Array(line.utf8)
        guard characters.count >= 3, characters.prefix(3).allSatisfy({ (48...57).contains($0) }),
              let code = Int(String(decoding: characters.prefix(3), as: UTF8.self)), (200...599).contains(code)
        else { throw SMTPError.protocolViolation("the relay sent a line that is not a reply") }
        let separator = characters.count > 3 ? characters[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw SMTPError.protocolViolation("the relay sent a line that is not a reply")
        }
        if let expected = self.code, expected != code {
            throw SMTPError.protocolViolation("the relay changed the code within a reply")
        }
        self.code = code
        lines.append(characters.count > 4 ? String(decoding: characters.dropFirst(4), as: UTF8.self) : "")
        guard lines.count <= Self.maximumLines else { throw SMTPError.protocolViolation("the relay's reply does not end") }
        guard separator == UInt8(ascii: " ") else { return nil }
        defer {
            self.code = nil
            lines = []
        }
        return SMTPReply(code: code, lines: lines)
    }
}

/// A failure of the conversation with a relay that is not one of its replies. Each counts as
/// transient: the courier tries the message again later. Never holds a credential or content.
public enum SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No reply within the step's time (`EHLO`, `DATA`, …).
    case timeout(String)
    /// The relay closed the connection.
    case connectionClosed
    /// The relay broke the protocol.
    case protocolViolation(String)
    /// The relay lacks something the settings require (STARTTLS, AUTH and a mechanism).
    case missingCapability(String)

    public var description: String {
        switch self {
        case .timeout(let step): "the relay did not answer \(step) in time"
        case .connectionClosed: "the relay closed the connection"
        case .protocolViolation(let what): what
        case .missingCapability(let what): what
        }
    }
}
