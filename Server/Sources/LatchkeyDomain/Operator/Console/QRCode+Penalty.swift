/// The penalty rules that choose a mask (ISO/IEC 18004 §7.8.3): the mask whose symbol has the
/// fewest features a reader could mistake — long runs, solid blocks, lookalikes of the finder
/// pattern, and an uneven share of dark modules — is used. Any mask decodes; the rules make a
/// camera's reading easier.
extension QRCode.Matrix {
    /// The finder's 1:1:3:1:1 lookalike with four light modules on either side, as the last 11
    /// modules of a line read as bits, dark = 1 (rule 3).
    private static let finderLike = (0b1011101_0000, 0b0000_1011101)

    /// The symbol's penalty: N1 = 3 + (length − 5) per run of five or more modules of one colour in
    /// a row or column, N2 = 3 per 2×2 block of one colour, N3 = 40 per finder lookalike in a row or
    /// column, N4 = 10 per full 5 % that the dark share is off 50 %.
    func penalty() -> Int {
        var score = 0
        for line in 0..<size {
            for isRow in [true, false] {
                var run = 0, window = 0, previous = false
                for index in 0..<size {
                    let dark = isRow ? self[index, line] : self[line, index]
                    if index > 0 && dark == previous {
                        run += 1
                    } else {
                        if run >= 5 { score += 3 + run - 5 }
                        run = 1
                    }
                    previous = dark
                    window = ((window << 1) | (dark ? 1 : 0)) & 0x7FF
                    if index >= 10 && (window == Self.finderLike.0 || window == Self.finderLike.1) { score += 40 }
                }
                if run >= 5 { score += 3 + run - 5 }
            }
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let colour = self[x, y]
                if self[x + 1, y] == colour && self[x, y + 1] == colour && self[x + 1, y + 1] == colour { score += 3 }
            }
        }
        let dark = modules.filter { $0 }.count, total = modules.count
        score += 10 * (abs(dark * 20 - total * 10) / total)
        return score
    }
}
