import Crypto
import Foundation
import LatchkeyCore

/// Tokens, nonces and digests: random values from the system's cryptographic generator and
/// SHA-256 digests, the only form in which tokens are stored.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A URL-safe token of 256 bits.
    public static func token() -> String {
        Data(bytes(32)).base64URL
    }

    /// A random identifier (UUID v4, lower case).
    public static func identifier() -> String { UUID().uuidString.lowercased() }

    /// A random identifier that starts with the time in milliseconds (UUID v7, RFC 9562), lower
    /// case: ids made one after another sit together in an index, so a million-user import appends
    /// to the primary keys instead of writing all over them. 74 random bits keep it unguessable.
    public static func orderedIdentifier(at date: Date) -> String {
        var random = bytes(16)
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        for index in 0..<6 { random[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        random[6] = (random[6] & 0x0f) | 0x70
        random[8] = (random[8] & 0x3f) | 0x80
        return random.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }.uuidString.lowercased()
    }

    /// The hex SHA-256 digest of a token, as stored.
    public static func digest(_ token: String) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            characters.append(hex[Int(byte >> 4)])
            characters.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
