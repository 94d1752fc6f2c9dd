extension DPoPClaims {
    /// The claims of a proof's payload, read without Foundation's `JSONDecoder` when the payload
    /// has the shape every client sends: one flat object of printable-ASCII strings (one-character
    /// escapes included), integers of at most 18 digits, `true`, `false` and `null`, each claim
    /// once (other members are skipped, as JSONDecoder skips them). Anything else (a `\u` escape,
    /// a non-ASCII byte, a nested value, a fraction or exponent, a longer number, a claim twice, a
    /// missing claim) gives nil, and `JSONDecoder` reads the payload as before: so whatever this accepts, it
    /// decodes exactly as `JSONDecoder` would (`HotPathTests` checks both side by side). Decoding
    /// the claims with `JSONDecoder` costs more than anything else in a proof but its signature.
    package init?(scanning payload: UnsafeRawBufferPointer) {
        var scanner = Scanner(bytes: payload)
        var jti: String?, htm: String?, htu: String?, iat: Int?, ath: String??, nonce: String??
        guard scanner.skip(UInt8(ascii: "{")) else { return nil }
        if !scanner.skip(UInt8(ascii: "}")) {
            repeat {
                guard let key = scanner.string(), scanner.skip(UInt8(ascii: ":")), let value = scanner.value() else { return nil }
                // A claim given twice is left to JSONDecoder (which keeps the first).
                switch key {
                case "jti": guard jti == nil, case .string(let text) = value else { return nil }; jti = text
                case "htm": guard htm == nil, case .string(let text) = value else { return nil }; htm = text
                case "htu": guard htu == nil, case .string(let text) = value else { return nil }; htu = text
                case "iat": guard iat == nil, case .integer(let number) = value else { return nil }; iat = number
                case "ath": guard ath == nil, let text = value.optionalString else { return nil }; ath = text
                case "nonce": guard nonce == nil, let text = value.optionalString else { return nil }; nonce = text
                default: break
                }
            } while scanner.skip(UInt8(ascii: ","))
            guard scanner.skip(UInt8(ascii: "}")) else { return nil }
        }
        guard scanner.atEnd, let jti, let htm, let htu, let iat else { return nil }
        self.init(jti: jti, htm: htm, htu: htu, iat: iat, ath: ath ?? nil, nonce: nonce ?? nil)
    }

    /// A value of the accepted shape.
    private enum Value {
        case string(String), integer(Int), literal(isNull: Bool)

        /// A string, or nil for `null` (as `decodeIfPresent` reads it); nil of nil otherwise.
        var optionalString: String?? {
            switch self {
            case .string(let text): .some(text)
            case .integer: .none
            case .literal(let isNull): isNull ? .some(nil) : .none
            }
        }
    }

    /// Reads the accepted shape of JSON over bytes; each read skips the whitespace before it.
    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var atEnd: Bool {
            mutating get { skipWhitespace(); return index == bytes.count }
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string of printable ASCII, with the escapes of one character (`\/` is how
        /// `JSONSerialization` writes the slashes of `htu`); `\u` is left to JSONDecoder.
        mutating func string() -> String? {
            guard skip(UInt8(ascii: "\"")) else { return nil }
            var start = index
            var unescaped: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    let tail = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                    if unescaped.isEmpty { return String(decoding: tail, as: UTF8.self) }
                    unescaped.append(contentsOf: tail)
                    return String(decoding: unescaped, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count, let character = Self.unescaped(bytes[index + 1]) else { return nil }
                    unescaped.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                    unescaped.append(character)
                    index += 2
                    start = index
                case 0x20..<0x7F: index += 1
                default: return nil
                }
            }
            return nil
        }

        /// The character of a one-character escape (RFC 8259 §7).
        static func unescaped(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        }

        mutating func value() -> Value? {
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(Value.integer)
            case UInt8(ascii: "t"): return word("true") ? .literal(isNull: false) : nil
            case UInt8(ascii: "f"): return word("false") ? .literal(isNull: false) : nil
            case UInt8(ascii: "n"): return word("null") ? .literal(isNull: true) : nil
            default: return nil
            }
        }

        /// `-?(0|[1-9][0-9]*)` of at most 18 digits (so it fits an `Int`), not followed by a
        /// fraction or an exponent.
        mutating func integer() -> Int? {
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var magnitude = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                // A 19th digit could overflow (and trap): such a number is left to JSONDecoder.
                guard index - start < 18 else { return nil }
                magnitude = magnitude * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
            return negative ? -magnitude : magnitude
        }

        mutating func word(_ text: StaticString) -> Bool {
            let matches = text.withUTF8Buffer { word in
                bytes.count - index >= word.count && word.indices.allSatisfy { bytes[index + $0] == word[$0] }
            }
            if matches { index += text.utf8CodeUnitCount }
            return matches
        }
    }
}
