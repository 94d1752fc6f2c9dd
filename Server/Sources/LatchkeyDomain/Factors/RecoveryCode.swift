import Foundation

/// A wallet's recovery codes (NIST SP 800-63B's look-up secrets): ten single-use codes, each
/// twelve characters of lowercase Crockford base32 in groups of four (`3k7m-p9x4-tqa2`). The first
/// character is the code's position (0 to 9) and not secret; the other eleven are 55 random bits.
/// The position lets a check hash the one stored code it names instead of all ten, so checking a
/// code costs one password hash like any other credential (docs/security.md).
public enum RecoveryCode {
    /// How many codes a wallet gets at a time.
    public static let count = 10
    /// Characters after the position: 11 × 5 = 55 random bits.
    static let secretLength = 11
    /// Crockford's base32: no i, l, o or u, so nothing reads as another character.
    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")

    /// `count` new codes, the code at index `i` carrying position `i`.
    public static func generate() -> [String] {
        (0..<count).map { position in
            // 256 is a multiple of 32: each byte's low five bits are uniform.
            let secret = SecureRandom.bytes(secretLength).map { alphabet[Int($0 & 31)] }
            let plain = String(alphabet[position]) + String(secret)
            return stride(from: 0, to: plain.count, by: 4).map { start in
                String(plain.dropFirst(start).prefix(4))
            }.joined(separator: "-")
        }
    }

    /// A code as typed, read the way it was shown: case, spaces and hyphens ignored, and the
    /// letters Crockford's base32 leaves out read as the digits they look like (o as 0, i and l as
    /// 1). Nil when it cannot be one of the codes (length, characters, position). The normalized
    /// form (twelve characters, no hyphens) is what is hashed and stored.
    public static func parse(_ typed: String) -> (position: Int, normalized: String)? {
        let mapped = typed.lowercased().compactMap { character -> Character? in
            switch character {
            case "-", " ", "\t": nil
            case "o": "0"
            case "i", "l": "1"
            default: character
            }
        }
        guard mapped.count == secretLength + 1, mapped.allSatisfy(alphabet.contains),
              let position = mapped.first?.wholeNumberValue, position < count else { return nil }
        return (position, String(mapped))
    }
}
