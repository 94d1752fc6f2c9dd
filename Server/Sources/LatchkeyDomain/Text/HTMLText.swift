import Mustache

/// HTML escaping for the server's own pages (the console's and the portal's), as swift-mustache's
/// default escapes (`<`, `>`, `&`, `"` and `'` as `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&#39;`) but
/// byte by byte: the default hashes every character of every value into a dictionary, which on
/// a console page of a hundred sessions was a third of the page's rendering. A text without any
/// of the five is returned as it is. Each character is escaped wherever it stands, combining marks
/// after it too (the default compares whole characters, so `"` followed by a combining mark slipped
/// through).
package struct HTMLText: MustacheContentType {
    /// The name templates give it in their content type pragma.
    static let name = "LATCHKEY_HTML"

    /// `template` with the pragma that makes this its escaping, registered before it is parsed.
    package static func template(_ text: String) -> String {
        _ = registered
        return "{{% CONTENT_TYPE: \(name)}}" + text
    }

    /// swift-mustache looks content types up by name when it parses.
    private static let registered: Void = { MustacheContentTypes.register(HTMLText(), named: name) }()

    package init() {}

    package func escapeText(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(where: Self.isSpecial) else { return String(decoding: bytes, as: UTF8.self) }
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 16)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
                default: escaped.append(byte)
                }
            }
            return String(decoding: escaped, as: UTF8.self)
        }
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'")
    }
}
