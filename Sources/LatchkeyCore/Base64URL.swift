import Foundation

/// Base64url (RFC 4648 §5), the one codec of the SDK and the server: JOSE (DPoP proofs, their
/// keys and thumbprints, ID tokens), sealed credentials, tokens and nonces.
///
/// Encoding uses the URL-safe alphabet (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`) and never pads,
/// as RFC 7515 §2 asks of JOSE.
///
/// Decoding is strict, because what it reads is written by whoever sends the request (a proof, a
/// key's coordinates, a seal, a nonce) and one value must have one spelling. It refuses, with
/// `nil`:
/// - any character outside the alphabet: padding `=`, the standard alphabet's `+` and `/`,
///   whitespace and line breaks, anything not ASCII;
/// - a length no byte count encodes (a length of 4n + 1);
/// - a last character whose unused low bits are not zero, so no two texts decode to the same bytes.
///
/// The empty text is the empty value: callers that need bytes check the length they expect.
public enum Base64URL {
    /// The URL-safe alphabet, by value (0–63), as UTF-8 bytes.
    public static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Whether `byte` is a character of the alphabet.
    public static func isAlphabet(_ byte: UInt8) -> Bool { values[Int(byte)] != invalid }

    /// The value of each byte of text: 0–63 for the alphabet's characters, `invalid` for any other.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { values[Int(character)] = UInt8(value) }
        return values
    }()
    private static let invalid: UInt8 = 0xFF

    /// `bytes` in base64url without padding.
    public static func encode(_ bytes: Data) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        bytes.withUnsafeBytes { buffer in
            for byte in buffer {
                accumulator = accumulator << 8 | UInt32(byte)
                bits += 8
                while bits >= 6 {
                    bits -= 6
                    text.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
                }
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if bits > 0 { text.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` encodes; `nil` when it is not base64url in the strict form the type's
    /// documentation describes.
    public static func decode(_ text: Substring) -> Data? {
        // A native string's bytes are read where they lie; any other text is copied first.
        text.utf8.withContiguousStorageIfAvailable(decode(bytes:)) ?? Array(text.utf8).withUnsafeBufferPointer(decode(bytes:))
    }

    /// `decode(_:)` over the text's UTF-8 bytes, written straight into the value (its length is
    /// known from the text's: three bytes for every four characters, and one or two for the rest).
    private static func decode(bytes text: UnsafeBufferPointer<UInt8>) -> Data? {
        guard text.count % 4 != 1 else { return nil }
        var data = Data(count: text.count * 3 / 4)
        let valid = data.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
            values.withUnsafeBufferPointer { values -> Bool in
                var accumulator: UInt32 = 0
                var bits = 0
                var written = 0
                for character in text {
                    let value = values[Int(character)]
                    guard value != invalid else { return false }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        out[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        written += 1
                        accumulator &= (1 << UInt32(bits)) - 1
                    }
                }
                // What is left over (0, 2 or 4 bits) only fills the last character: it must be zero.
                return accumulator == 0
            }
        }
        return valid ? data : nil
    }

    /// The bytes `text` encodes; `nil` when it is not strict base64url (`decode(_:)` of a `Substring`).
    public static func decode(_ text: String) -> Data? { decode(text[...]) }
}

extension Data {
    /// Decodes strict base64url (`Base64URL`); `nil` for anything else.
    public init?(base64URL text: Substring) {
        guard let data = Base64URL.decode(text) else { return nil }
        self = data
    }

    /// Decodes strict base64url (`Base64URL`); `nil` for anything else.
    public init?(base64URL text: String) {
        self.init(base64URL: text[...])
    }

    /// The bytes in base64url without padding (`Base64URL`).
    public var base64URL: String { Base64URL.encode(self) }
}
