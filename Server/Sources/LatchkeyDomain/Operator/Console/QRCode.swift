/// A QR code symbol (ISO/IEC 18004) of some bytes, made on the server because the project has no
/// QR package: byte mode, error correction level M (about 15 % of the symbol may be unreadable),
/// the smallest version (1–40) that holds the bytes, and the mask of least penalty. The console's
/// setup page draws the authenticator's `otpauth://` URI with it (`svg(id:label:)`), so that an
/// operator at a desk scans the key with the phone instead of typing it.
///
/// The steps are the standard's: the bit stream (mode, count, bytes, terminator, pad codewords),
/// Reed–Solomon error correction per block and the blocks interleaved (`QRCode+ReedSolomon.swift`),
/// then the function patterns, the codewords in their zigzag, the mask, and the format and
/// version information (`QRCode+Layout.swift`).
public struct QRCode: Sendable, Equatable {
    /// Why bytes cannot be drawn.
    public enum Failure: Error, Equatable {
        /// More bytes than version 40 at level M holds (2,331).
        case tooLong(byteCount: Int)
    }

    /// The version, 1...40: the symbol is `17 + 4 × version` modules wide.
    public let version: Int
    /// The mask pattern applied, 0...7.
    public let mask: Int
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// The modules row by row, `true` for dark.
    public let modules: [Bool]

    /// The symbol of `bytes`.
    /// - Throws: `QRCode.Failure.tooLong` when no version holds them.
    public init(bytes: [UInt8]) throws { try self.init(bytes: bytes, mask: nil) }

    /// The symbol of `bytes` with `mask` (0...7), or with the mask of least penalty when nil.
    init(bytes: [UInt8], mask chosen: Int?) throws {
        guard let version = (1...40).first(where: { Self.capacity(version: $0) >= bytes.count }) else {
            throw Failure.tooLong(byteCount: bytes.count)
        }
        let codewords = Self.interleaved(Self.dataCodewords(bytes, version: version), version: version)
        var matrix = Matrix(version: version)
        matrix.place(codewords)
        let mask = chosen.map { matrix.apply(fixed: $0) } ?? matrix.applyBestMask()
        self.version = version
        self.mask = mask
        self.size = matrix.size
        self.modules = matrix.modules
    }

    /// The symbol of `text`'s UTF-8 bytes.
    /// - Throws: `QRCode.Failure.tooLong` when no version holds them.
    public init(text: String) throws { try self.init(bytes: Array(text.utf8)) }

    /// Whether the module in column `x` and row `y` (from the top left, 0-based) is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    // MARK: Capacity (level M)

    /// Error-correction codewords per block at level M, by version (ISO/IEC 18004 Table 9).
    static let ecCodewordsPerBlock = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
                                      26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28]
    /// Error-correction blocks at level M, by version (ISO/IEC 18004 Table 9).
    static let blockCount = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
                             17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49]

    /// The modules of a version that carry codewords (and remainder bits): the whole square less
    /// the finder, separator, timing and alignment patterns and the format and version information.
    static func dataModules(version: Int) -> Int {
        var count = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            count -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { count -= 36 }
        }
        return count
    }

    /// All codewords of a version (data and error correction).
    static func totalCodewords(version: Int) -> Int { dataModules(version: version) / 8 }

    /// The data codewords of a version at level M.
    static func dataCodewordCount(version: Int) -> Int {
        totalCodewords(version: version) - ecCodewordsPerBlock[version] * blockCount[version]
    }

    /// Bits of the byte mode's character count: 8 up to version 9, 16 from version 10.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// The bytes a version holds in byte mode at level M (ISO/IEC 18004 Table 7: 14 for version 1,
    /// 2,331 for version 40).
    public static func capacity(version: Int) -> Int {
        (dataCodewordCount(version: version) * 8 - 4 - countBits(version: version)) / 8
    }

    // MARK: The bit stream

    /// The data codewords: the byte mode indicator (0100), the count, the bytes, a terminator of
    /// up to four zero bits, zero bits to a byte's end, then the pad codewords 0xEC and 0x11 in turn.
    static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = dataCodewordCount(version: version) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Bits appended most significant first.
    struct BitBuffer {
        private(set) var bits: [Bool] = []
        var count: Int { bits.count }

        mutating func append(_ value: Int, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }

        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<min(start + 8, bits.count)].enumerated().reduce(UInt8(0)) { byte, bit in
                    bit.element ? byte | UInt8(0x80 >> bit.offset) : byte
                }
            }
        }
    }
}
