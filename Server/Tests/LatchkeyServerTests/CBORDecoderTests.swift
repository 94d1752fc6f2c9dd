import Foundation
import LatchkeyDomain
import Testing

/// The CBOR decoder under the WebAuthn parsers: RFC 8949 Appendix A's examples that fall in the
/// accepted subset decode to their values; everything outside the subset, and every malformed or
/// non-canonical encoding, is refused with its own error and never traps.
@Suite struct CBORDecoderTests {
    /// The bytes a hex string spells (test inputs only).
    static func bytes(_ hex: String) -> Data {
        let digits = Array(hex.utf8)
        return Data(stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! })
    }

    static func map(_ pairs: (CBOR, CBOR)...) -> CBOR { .map(pairs.map { CBOR.Entry(key: $0.0, value: $0.1) }) }

    /// RFC 8949 Appendix A, the examples without floats, tags, `undefined` or indefinite lengths.
    static let appendixA: [(String, CBOR)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)),
        ("1818", .unsigned(24)), ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)), ("3bffffffffffffffff", .negative(UInt64.max)),
        ("20", .negative(0)), ("29", .negative(9)), ("3863", .negative(99)), ("3903e7", .negative(999)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
        ("40", .bytes(Data())), ("4401020304", .bytes(Data([1, 2, 3, 4]))),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
        ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("a0", map()), ("a201020304", map((.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4)))),
        ("a26161016162820203", map((.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)])))),
        ("826161a161626163", .array([.text("a"), map((.text("b"), .text("c")))])),
        ("a56161614161626142616361436164614461656145",
         map((.text("a"), .text("A")), (.text("b"), .text("B")), (.text("c"), .text("C")), (.text("d"), .text("D")), (.text("e"), .text("E")))),
    ]

    @Test(arguments: appendixA)
    func decodesTheAppendixExamples(hex: String, value: CBOR) throws {
        #expect(try CBORDecoder.decode(Self.bytes(hex)) == value)
        #expect(try CBORDecoder.decode(Self.bytes(hex), canonicalMapOrder: true) == value)
    }

    /// Appendix A's examples outside the subset, and malformed or non-canonical encodings, each with its error.
    static let refused: [(String, CBORError)] = [
        ("f90000", .unsupported("floats")), ("fa47c35000", .unsupported("floats")), ("fb3ff199999999999a", .unsupported("floats")),
        ("f7", .unsupported("undefined")), ("f0", .unsupported("simple values")), ("f8ff", .unsupported("simple values")),
        ("c074323031332d30332d32315432303a30343a30305a", .unsupported("tags")), ("c249010000000000000000", .unsupported("tags")),
        ("d74401020304", .unsupported("tags")),
        ("5f42010243030405ff", .indefiniteLength), ("7f657374726561646d696e67ff", .indefiniteLength),
        ("9fff", .indefiniteLength), ("bf6346756ef563416d7421ff", .indefiniteLength), ("ff", .indefiniteLength),
        ("1f", .indefiniteLength),
        ("1c", .unsupported("reserved additional information")), ("5d", .unsupported("reserved additional information")),
        ("", .truncated), ("18", .truncated), ("1901", .truncated), ("4401", .truncated), ("8201", .truncated),
        ("a101", .truncated), ("62c3", .truncated),
        // Lengths no input could hold are refused before anything is allocated.
        ("5bffffffffffffffff", .truncated), ("7b0000000100000000", .truncated), ("9bffffffffffffffff", .truncated),
        ("bbffffffffffffffff", .truncated), ("9a7fffffff", .truncated),
        ("0000", .trailingBytes), ("a0a0", .trailingBytes),
        ("1817", .nonCanonicalEncoding), ("1900ff", .nonCanonicalEncoding), ("1a0000ffff", .nonCanonicalEncoding),
        ("1b00000000ffffffff", .nonCanonicalEncoding), ("3800", .nonCanonicalEncoding), ("5800", .nonCanonicalEncoding),
        ("780161", .nonCanonicalEncoding), ("980100", .nonCanonicalEncoding), ("b8010102", .nonCanonicalEncoding),
        ("61ff", .invalidUTF8), ("62c328", .invalidUTF8), ("63eda080", .invalidUTF8),
        ("a14001", .invalidMapKey), ("a1f501", .invalidMapKey), ("a18001", .invalidMapKey), ("a1a00001", .invalidMapKey),
        ("a201020103", .duplicateMapKey), ("a2616101616102", .duplicateMapKey), ("a220012002", .duplicateMapKey),
    ]

    @Test(arguments: refused)
    func refusesWhatIsOutsideTheSubset(hex: String, error: CBORError) {
        #expect(throws: error) { try CBORDecoder.decode(Self.bytes(hex)) }
    }

    /// CTAP2's canonical order (shorter encoding first, then bytewise) is required only when asked for.
    @Test(arguments: [
        ("a203040102", false), ("a262616101616202", false), ("a220010102", false),
        ("a201020304", true), ("a261620162616102", true),
        // A COSE EC2 key's labels in an authenticator's order: 1, 3, -1, -2, -3.
        ("a501020326200121402240", true),
    ])
    func requiresCanonicalOrderWhenAsked(hex: String, canonical: Bool) throws {
        let data = Self.bytes(hex)
        _ = try CBORDecoder.decode(data)
        if canonical {
            _ = try CBORDecoder.decode(data, canonicalMapOrder: true)
        } else {
            #expect(throws: CBORError.mapKeyOrder) { try CBORDecoder.decode(data, canonicalMapOrder: true) }
        }
    }

    @Test func boundsNestingDepth() throws {
        let deepest = Data(repeating: 0x81, count: CBORDecoder.maximumDepth) + [0x00]
        _ = try CBORDecoder.decode(deepest)
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decode(Data([0x81]) + deepest) }
        let deepMaps = Data((0...CBORDecoder.maximumDepth).flatMap { _ in [UInt8(0xA1), 0x01] }) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decode(deepMaps) }
    }

    @Test func boundsSize() throws {
        let largest = Data([0x59, 0xFF, 0xFD]) + Data(count: CBORDecoder.maximumSize - 3)
        #expect(try CBORDecoder.decode(largest).bytes?.count == CBORDecoder.maximumSize - 3)
        #expect(throws: CBORError.tooLarge) { try CBORDecoder.decode(largest + [0x00]) }
    }

    @Test func decodesAPrefixAndSaysHowLongItIs() throws {
        let (value, length) = try CBORDecoder.decodePrefix(Self.bytes("a1010243ffffff"))
        #expect(value == Self.map((.unsigned(1), .unsigned(2))))
        #expect(length == 3)
        #expect(throws: CBORError.truncated) { try CBORDecoder.decodePrefix(Self.bytes("a101")) }
    }

    @Test func readsMapsByKey() throws {
        let key = try CBORDecoder.decode(Self.bytes("a3010203266161f5"))
        #expect(key[1]?.int == 2)
        #expect(key[3]?.int == -7)
        #expect(key["a"] == .bool(true))
        #expect(key[2] == nil)
        #expect(CBOR.negative(UInt64.max).int == nil)
        #expect(CBOR.unsigned(UInt64.max).int == nil)
    }
}
