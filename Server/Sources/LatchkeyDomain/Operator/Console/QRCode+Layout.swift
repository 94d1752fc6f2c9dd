/// The symbol's modules (ISO/IEC 18004 §6.3 and §7.7–7.9): the function patterns, the codewords
/// in their zigzag, the mask chosen by the penalty rules, and the format and version information.
extension QRCode {
    /// The modules of a symbol being made, and which of them belong to function patterns (which
    /// carry no codeword and are never masked).
    struct Matrix {
        let version: Int
        let size: Int
        private(set) var modules: [Bool]
        private var isFunction: [Bool]

        init(version: Int) {
            self.version = version
            self.size = 17 + 4 * version
            self.modules = Array(repeating: false, count: size * size)
            self.isFunction = Array(repeating: false, count: size * size)
            drawFunctionPatterns()
        }

        subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

        private mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
            modules[y * size + x] = dark
            isFunction[y * size + x] = true
        }

        // MARK: Function patterns

        /// Timing patterns, the three finder patterns with their separators, the alignment
        /// patterns, and the format and version areas (reserved now, written with the mask).
        private mutating func drawFunctionPatterns() {
            for index in 0..<size {
                setFunction(6, index, index % 2 == 0)
                setFunction(index, 6, index % 2 == 0)
            }
            for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                // A 7×7 finder (dark ring, light ring, dark 3×3) in a light separator.
                for dy in -4...4 {
                    for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                        let distance = max(abs(dx), abs(dy))
                        setFunction(x + dx, y + dy, distance != 2 && distance != 4)
                    }
                }
            }
            let centres = QRCode.alignmentCentres(version: version)
            for (i, cx) in centres.enumerated() {
                for (j, cy) in centres.enumerated() {
                    // No alignment pattern where a finder pattern is.
                    if (i == 0 && j == 0) || (i == 0 && j == centres.count - 1) || (i == centres.count - 1 && j == 0) { continue }
                    for dy in -2...2 {
                        for dx in -2...2 { setFunction(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                    }
                }
            }
            drawFormat(mask: 0)
            if version >= 7 {
                let bits = QRCode.versionBits(version)
                for index in 0..<18 {
                    let dark = (bits >> index) & 1 == 1, a = size - 11 + index % 3, b = index / 3
                    setFunction(a, b, dark)
                    setFunction(b, a, dark)
                }
            }
        }

        /// The 15 format bits in both copies (around the top left finder, and split between the
        /// other two), and the module that is always dark.
        mutating func drawFormat(mask: Int) {
            let bits = QRCode.formatBits(mask: mask)
            func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
            for index in 0...5 { setFunction(8, index, bit(index)) }
            setFunction(8, 7, bit(6))
            setFunction(8, 8, bit(7))
            setFunction(7, 8, bit(8))
            for index in 9..<15 { setFunction(14 - index, 8, bit(index)) }
            for index in 0..<8 { setFunction(size - 1 - index, 8, bit(index)) }
            for index in 8..<15 { setFunction(8, size - 15 + index, bit(index)) }
            setFunction(8, size - 8, true)
        }

        // MARK: Codewords and mask

        /// The codewords' bits, most significant first, in two-module columns from the bottom right,
        /// up and down in turn, skipping the vertical timing pattern and every function module;
        /// modules left over (the remainder bits) stay light.
        mutating func place(_ codewords: [UInt8]) {
            var bit = 0, right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                let upward = (right + 1) & 2 == 0
                for step in 0..<size {
                    let y = upward ? size - 1 - step : step
                    for x in [right, right - 1] where !isFunction[y * size + x] && bit < codewords.count * 8 {
                        modules[y * size + x] = (codewords[bit >> 3] >> (7 - (bit & 7))) & 1 == 1
                        bit += 1
                    }
                }
                right -= 2
            }
        }

        /// Whether mask `mask` inverts the module at column `x`, row `y` (ISO/IEC 18004 Table 10).
        static func inverts(_ mask: Int, x: Int, y: Int) -> Bool {
            switch mask {
            case 0: (x + y) % 2 == 0
            case 1: y % 2 == 0
            case 2: x % 3 == 0
            case 3: (x + y) % 3 == 0
            case 4: (x / 3 + y / 2) % 2 == 0
            case 5: x * y % 2 + x * y % 3 == 0
            case 6: (x * y % 2 + x * y % 3) % 2 == 0
            default: ((x + y) % 2 + x * y % 3) % 2 == 0
            }
        }

        /// Inverts the data modules that `mask` selects (applied twice, it undoes itself).
        mutating func apply(mask: Int) {
            for y in 0..<size {
                for x in 0..<size where !isFunction[y * size + x] && Self.inverts(mask, x: x, y: y) { modules[y * size + x].toggle() }
            }
        }

        /// Applies `mask` and its format information, and answers it.
        mutating func apply(fixed mask: Int) -> Int {
            apply(mask: mask)
            drawFormat(mask: mask)
            return mask
        }

        /// Tries the eight masks with their format information, keeps the one of least penalty,
        /// and answers it.
        mutating func applyBestMask() -> Int {
            var best = 0, bestPenalty = Int.max
            for mask in 0..<8 {
                apply(mask: mask)
                drawFormat(mask: mask)
                let score = penalty()
                if score < bestPenalty { (best, bestPenalty) = (mask, score) }
                apply(mask: mask)
            }
            apply(mask: best)
            drawFormat(mask: best)
            return best
        }
    }

    // MARK: Format, version and alignment

    /// The format information of level M (indicator 00) and `mask`: five bits, their BCH(15,5)
    /// code (generator 0x537), XORed with 0x5412 so that it is never all light (ISO/IEC 18004 §7.9.1).
    static func formatBits(mask: Int) -> Int {
        let data = 0b00 << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// The version information (versions 7 and up): six bits of the version and their
    /// BCH(18,6) code (generator 0x1F25) (ISO/IEC 18004 §7.10, Annex D).
    static func versionBits(_ version: Int) -> Int {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        return version << 12 | remainder
    }

    /// The rows (and columns) of the alignment patterns' centres (ISO/IEC 18004 Annex E): 6, the
    /// last at `size − 7`, the others evenly spaced by an even step between.
    static func alignmentCentres(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2, size = 17 + 4 * version
        let step = (version * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        return [6] + (0..<count - 1).map { size - 7 - $0 * step }.reversed()
    }
}
