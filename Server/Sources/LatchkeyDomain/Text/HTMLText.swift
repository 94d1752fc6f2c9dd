import Mustache

/// HTML escaping for what the server renders as HTML (the console's and the portal's pages, the
/// HTML part of emails, the console's SVG): `<`, `>`, `&`, `"` and `'` as `&lt;`, `&gt;`, `&amp;`,
/// `&quot;` and `&#39;`, as swift-mustache's default escapes them, but byte by byte. The default
/// compares whole characters, so a quote followed by a combining mark (one character that is not
/// a quote) was written as it came and ended an attribute; here each of the five is escaped
/// wherever it stands. Byte by byte is also cheaper than the default, which hashes every character
/// of every value; a text without any of the five is returned as it is.
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
