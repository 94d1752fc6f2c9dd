/// Reed–Solomon error correction as QR codes use it (ISO/IEC 18004 §7.5 and Annex A): codewords
/// are elements of GF(256) modulo x⁸ + x⁴ + x³ + x² + 1 (0x11D), α = 2, and a block's error
/// correction is the remainder of its data (as a polynomial, first codeword highest) times xⁿ
/// divided by the generator (x − α⁰)(x − α¹)…(x − αⁿ⁻¹).
extension QRCode {
    /// The product of two elements of GF(256) (shift and add, reduced by 0x11D).
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var product = 0, x = Int(a)
        for bit in 0..<8 where (b >> bit) & 1 == 1 { product ^= x << bit }
        for bit in stride(from: 14, through: 8, by: -1) where (product >> bit) & 1 == 1 { product ^= 0x11D << (bit - 8) }
        return UInt8(product)
    }

    /// The generator polynomial of `degree` error-correction codewords: its coefficients from
    /// xⁿ⁻¹ down to x⁰ (the leading xⁿ, whose coefficient is 1, left out).
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        // Multiplies the product so far by (x − root) for root = α⁰ … αⁿ⁻¹ (− is + in GF(2⁸)).
        for _ in 0..<degree {
            for index in 0..<degree {
                coefficients[index] = multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The error-correction codewords of `data` for `generator` (the remainder of the division).
    static func errorCorrection(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for codeword in data {
            let factor = codeword ^ remainder.removeFirst()
            remainder.append(0)
            for index in remainder.indices { remainder[index] ^= multiply(generator[index], factor) }
        }
        return remainder
    }

    /// The codewords in the order the symbol holds them: the data split into the version's blocks
    /// (the shorter blocks first, the longer ones a codeword more), each block's error correction
    /// computed, then the first data codeword of every block, the second, …, and the error
    /// correction likewise (ISO/IEC 18004 §7.6).
    static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let blocks = blockCount[version], ecLength = ecCodewordsPerBlock[version]
        let shortLength = data.count / blocks, longBlocks = data.count % blocks
        let generator = generator(degree: ecLength)
        var dataBlocks: [[UInt8]] = [], start = 0
        for index in 0..<blocks {
            let length = shortLength + (index >= blocks - longBlocks ? 1 : 0)
            dataBlocks.append(Array(data[start..<start + length]))
            start += length
        }
        let ecBlocks = dataBlocks.map { errorCorrection($0, generator: generator) }
        var result: [UInt8] = []
        for index in 0...shortLength {
            for block in dataBlocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<ecLength {
            for block in ecBlocks { result.append(block[index]) }
        }
        return result
    }
}
