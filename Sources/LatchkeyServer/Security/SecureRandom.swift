import Crypto
import Foundation

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

extension Data {
    /// Decodes base64url with or without padding; nil for anything else.
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    /// Base64url without padding (RFC 4648 §5), as tokens and JOSE use it.
    public var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
