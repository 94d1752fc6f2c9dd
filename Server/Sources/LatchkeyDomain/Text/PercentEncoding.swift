/// Percent-encoding (RFC 3986 §2.1) that keeps only the unreserved ASCII characters (letters,
/// digits, `-._~`) and writes every other byte of the UTF-8 form as `%XX` (upper-case hex), so a
/// `+`, a `:`, a `/` or a non-ASCII letter in a value survives a query string, a form body or a
/// path segment, and what is written is ASCII (a `Link` header's value too).
package enum PercentEncoding {
    /// `value` with every byte but the unreserved characters percent-encoded.
    package static func unreserved(_ value: String) -> String {
        var value = value
        return value.withUTF8 { bytes in
            guard !bytes.allSatisfy(isUnreserved) else { return String(decoding: bytes, as: UTF8.self) }
            let hex = Array("0123456789ABCDEF".utf8)
            var encoded: [UInt8] = []
            encoded.reserveCapacity(bytes.count * 3)
            for byte in bytes {
                if isUnreserved(byte) {
                    encoded.append(byte)
                } else {
                    encoded.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            return String(decoding: encoded, as: UTF8.self)
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
