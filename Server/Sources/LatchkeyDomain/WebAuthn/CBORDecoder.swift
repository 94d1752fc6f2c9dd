import Foundation

/// Why `CBORDecoder` refused its input. Each names the rule; none echoes the input.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends inside an item.
    case truncated
    /// Bytes follow the item where none may.
    case trailingBytes
    /// The input is longer than `CBORDecoder.maximumSize`.
    case tooLarge
    /// Arrays and maps nest deeper than `CBORDecoder.maximumDepth`.
    case tooDeep
    /// A length or integer is not in its shortest encoding.
    case nonCanonicalEncoding
    /// An indefinite-length string, array or map (or a stray "break").
    case indefiniteLength
    /// A tag, a float, `undefined`, another simple value, or a reserved additional-information value.
    case unsupported(String)
    /// A text string that is not valid UTF-8.
    case invalidUTF8
    /// A map key that is neither an integer nor a text string.
    case invalidMapKey
    /// A map key that occurs twice in one map.
    case duplicateMapKey
    /// Map keys out of the CTAP2 canonical order, where that order is required.
    case mapKeyOrder

    public var description: String {
        switch self {
        case .truncated: "CBOR ends inside an item"
        case .trailingBytes: "bytes follow the CBOR item"
        case .tooLarge: "CBOR is longer than \(CBORDecoder.maximumSize) bytes"
        case .tooDeep: "CBOR nests deeper than \(CBORDecoder.maximumDepth) levels"
        case .nonCanonicalEncoding: "a CBOR length or integer is not in its shortest form"
        case .indefiniteLength: "CBOR indefinite lengths are not accepted"
        case .unsupported(let what): "CBOR \(what) is not accepted"
        case .invalidUTF8: "a CBOR text string is not valid UTF-8"
        case .invalidMapKey: "a CBOR map key is neither an integer nor text"
        case .duplicateMapKey: "a CBOR map repeats a key"
        case .mapKeyOrder: "CBOR map keys are not in canonical order"
        }
    }
}

/// A strict decoder of the CBOR subset WebAuthn needs (`CBOR`), for bytes an attacker controls.
///
/// It accepts definite lengths only, each length and integer in its shortest form, map keys that
/// are integers or text and never repeat, and nothing else: no tags, floats, `undefined` or other
/// simple values. Arrays and maps nest at most `maximumDepth` levels and the input is at most
/// `maximumSize` bytes; a declared length is checked against the bytes left before anything is read
/// or allocated, and all arithmetic on lengths is checked, so no input makes it trap.
///
/// With `canonicalMapOrder`, map keys must also be in the CTAP2 canonical order (shorter encoding
/// first, then bytewise): what an authenticator itself encodes (the credential public key and the
/// extensions in authenticator data) is required to be in it. What the client assembles (the
/// attestation object's outer map and statement) is read in any order.
public struct CBORDecoder {
    /// How many arrays and maps may nest inside one another (a top-level map is the first).
    public static let maximumDepth = 16
    /// The longest input accepted, in bytes.
    public static let maximumSize = 65_536

    private let bytes: [UInt8]
    private let canonicalMapOrder: Bool
    private var position = 0

    private init(_ data: Data, canonicalMapOrder: Bool) {
        self.bytes = [UInt8](data)
        self.canonicalMapOrder = canonicalMapOrder
    }

    /// The single item `data` encodes.
    /// - Throws: `CBORError` when `data` is not exactly one item of the accepted subset.
    public static func decode(_ data: Data, canonicalMapOrder: Bool = false) throws(CBORError) -> CBOR {
        let (value, length) = try decodePrefix(data, canonicalMapOrder: canonicalMapOrder)
        guard length == data.count else { throw .trailingBytes }
        return value
    }

    /// The item at the start of `data` and how many bytes it takes; what follows is the caller's.
    /// - Throws: `CBORError` when `data` does not start with an item of the accepted subset.
    public static func decodePrefix(_ data: Data, canonicalMapOrder: Bool = false) throws(CBORError) -> (value: CBOR, length: Int) {
        guard data.count <= maximumSize else { throw .tooLarge }
        var decoder = CBORDecoder(data, canonicalMapOrder: canonicalMapOrder)
        let value = try decoder.item(depth: 1)
        return (value, decoder.position)
    }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard position < bytes.count else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    /// `count` bytes from the current position, after checking that many are left.
    private mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - position) else { throw .truncated }
        let end = position + Int(count)
        defer { position = end }
        return bytes[position..<end]
    }

    /// The argument of an item whose initial byte has additional information `info`, in shortest form.
    private mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            let width = 1 << (info - 24)
            var value: UInt64 = 0
            for byte in try take(UInt64(width)) { value = value << 8 | UInt64(byte) }
            let smallest: UInt64 = info == 24 ? 24 : 1 << (UInt64(width) * 4)
            guard value >= smallest else { throw .nonCanonicalEncoding }
            return value
        case 31: throw .indefiniteLength
        default: throw .unsupported("reserved additional information")
        }
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBOR {
        let initial = try byte()
        let major = initial >> 5, info = initial & 0x1F
        if major == 7 { return try simple(info) }
        if major == 6 { throw .unsupported("tags") }
        let argument = try argument(info)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(Data(try take(argument)))
        case 3:
            guard let text = String(validating: try take(argument), as: UTF8.self) else { throw .invalidUTF8 }
            return .text(text)
        case 4:
            guard depth <= CBORDecoder.maximumDepth else { throw .tooDeep }
            // Every element takes at least a byte: a count beyond what is left is refused before allocating.
            guard argument <= UInt64(bytes.count - position) else { throw .truncated }
            var elements: [CBOR] = []
            elements.reserveCapacity(Int(argument))
            for _ in 0..<argument { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        default:
            guard depth <= CBORDecoder.maximumDepth else { throw .tooDeep }
            return .map(try map(count: argument, depth: depth))
        }
    }

    private mutating func map(count: UInt64, depth: Int) throws(CBORError) -> [CBOR.Entry] {
        // Every entry takes at least two bytes.
        guard count <= UInt64(bytes.count - position) / 2 else { throw .truncated }
        var entries: [CBOR.Entry] = []
        entries.reserveCapacity(Int(count))
        var seen = Set<ArraySlice<UInt8>>()
        var previous: ArraySlice<UInt8>?
        for _ in 0..<count {
            let start = position
            let key = try item(depth: depth + 1)
            switch key {
            case .unsigned, .negative, .text: break
            default: throw .invalidMapKey
            }
            // Lengths and integers are in shortest form, so equal keys have equal encodings.
            let encoded = bytes[start..<position]
            guard seen.insert(encoded).inserted else { throw .duplicateMapKey }
            if canonicalMapOrder, let previous, !CBORDecoder.precedes(previous, encoded) { throw .mapKeyOrder }
            previous = encoded
            entries.append(CBOR.Entry(key: key, value: try item(depth: depth + 1)))
        }
        return entries
    }

    /// Whether encoded key `a` comes before `b` in CTAP2's canonical order: shorter first, then bytewise.
    private static func precedes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }

    private func simple(_ info: UInt8) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: throw .unsupported("undefined")
        case 25, 26, 27: throw .unsupported("floats")
        case 31: throw .indefiniteLength
        default: throw .unsupported("simple values")
        }
    }
}
