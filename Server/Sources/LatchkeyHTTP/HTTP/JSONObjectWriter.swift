/// Writes one flat JSON object of string members, for an answer on a hot path that costs more to
/// encode with `JSONEncoder` than to compute (`APIHandler.sessionAnswer`). Strings are
/// escaped as RFC 8259 §7 requires (the quote, the backslash and control characters); the rest of
/// their UTF-8 is written as it is.
package struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    package init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// Adds `"key":"value"`; a nil value adds nothing (as the generated types encode an absent optional).
    package mutating func add(_ key: StaticString, _ value: String?) {
        guard var value else { return }
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: #"":""#.utf8)
        value.withUTF8 { utf8 in
            // Most values (ids, dates) need no escape: their bytes go in at once.
            if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0x00..<0x20: bytes.append(contentsOf: Self.escaped(control: byte))
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The object, closed.
    package consuming func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `\u00XX` for a control character.
    private static func escaped(control byte: UInt8) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        return Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
    }
}
