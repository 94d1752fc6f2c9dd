import Foundation

/// A decoded CBOR (RFC 8949) data item of the subset WebAuthn uses: integers, byte and text strings,
/// arrays, maps, `true`, `false` and `null`. `CBORDecoder` produces it; nothing encodes it (the server
/// only reads what authenticators and clients send).
public enum CBOR: Sendable, Equatable {
    /// A non-negative integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1): the value is `-1 - n` for the stored `n`, so the whole range
    /// down to `-2^64` is representable.
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes(Data)
    /// A text string (major type 3), valid UTF-8.
    case text(String)
    /// An array (major type 4).
    case array([CBOR])
    /// A map (major type 5), its entries in the order they were encoded; keys are integers or text
    /// and never repeat.
    case map([Entry])
    /// `true` or `false` (simple values 21 and 20).
    case bool(Bool)
    /// `null` (simple value 22).
    case null

    /// One key and value of a map.
    public struct Entry: Sendable, Equatable {
        public var key: CBOR
        public var value: CBOR

        public init(key: CBOR, value: CBOR) {
            self.key = key
            self.value = value
        }
    }
}

extension CBOR {
    /// The integer, when this is one that fits `Int`.
    public var int: Int? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): return value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default: return nil
        }
    }

    /// The bytes, when this is a byte string.
    public var bytes: Data? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text, when this is a text string.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The entries, when this is a map.
    public var entries: [Entry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value under the integer key `key`, when this is a map that has it.
    public subscript(key: Int) -> CBOR? {
        entries?.first { $0.key.int == key }?.value
    }

    /// The value under the text key `key`, when this is a map that has it.
    public subscript(key: String) -> CBOR? {
        entries?.first { $0.key.text == key }?.value
    }
}
