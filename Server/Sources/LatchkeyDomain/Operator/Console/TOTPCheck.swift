import Crypto
import Foundation

/// RFC 6238 codes as authenticator apps make them (SHA-1, 6 digits, 30-second steps) and their
/// check: the step before and after the current one are accepted for clock drift (RFC 6238 §5.2's
/// one step of delay), and a step is accepted once (`ConsoleStore.acceptOperatorTOTPStep`), so a
/// code seen over a shoulder or in a log is spent.
///
/// The code itself is RFC 4226's HOTP over swift-crypto's HMAC (`code(step:digits:hash:)`), a
/// dozen lines pinned by RFC 6238's test vectors and checked against HummingbirdOTP in the tests;
/// the domain does not import HummingbirdOTP because that module brings the Hummingbird HTTP
/// server with it, and the domain knows no HTTP.
public struct TOTPCheck: Sendable {
    /// The HMAC an authenticator uses for its codes (RFC 6238 §1.2: SHA-1, SHA-256 or SHA-512).
    public enum Hash: Sendable, CaseIterable {
        case sha1, sha256, sha512
    }

    public static let timeStep = 30
    /// Steps either side of the current one that are accepted.
    public static let window: Int64 = 1

    public let secret: String

    public init(secret: String) { self.secret = secret }

    /// A new secret: 160 random bits (RFC 4226 §4's recommendation) as 40 hex characters, whose
    /// ASCII bytes are the HMAC key.
    public static func newSecret() -> String {
        SecureRandom.bytes(20).map { String(format: "%02x", $0) }.joined()
    }

    /// The time step of `date`.
    public static func step(of date: Date) -> Int64 { Int64(floor(date.timeIntervalSince1970 / Double(timeStep))) }

    /// The code of `step` (`digits` long, 6 to 8; SHA-1 unless told): RFC 4226 §5.3's HOTP of
    /// the step as an 8-byte big-endian counter, the HMAC keyed with the secret's UTF-8 bytes.
    public func code(step: Int64, digits: Int = 6, hash: Hash = .sha1) -> String {
        let key = SymmetricKey(data: Data(secret.utf8))
        let counter = withUnsafeBytes(of: UInt64(bitPattern: step).bigEndian) { Data($0) }
        let mac: [UInt8] = switch hash {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: counter, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: counter, using: key))
        }
        // Dynamic truncation: four bytes from the offset the last byte's low nibble names, top bit cleared.
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value = mac[offset..<offset + 4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } & 0x7fff_ffff
        let modulus = (0..<digits).reduce(UInt32(1)) { value, _ in value * 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The step within the window of `now` whose code `code` is, if any (compared in constant time).
    public func matchingStep(_ code: String, now: Date) -> Int64? {
        let trimmed = code.filter { !$0.isWhitespace }
        guard trimmed.count == 6, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) else { return nil }
        let current = Self.step(of: now)
        var found: Int64?
        for step in (current - Self.window)...(current + Self.window)
            where ConstantTime.equal(Data(self.code(step: step).utf8), Data(trimmed.utf8)) {
            found = step
        }
        return found
    }

    /// The `otpauth://` URI an authenticator app reads (the Key URI Format of Google
    /// Authenticator): `otpauth://totp/<issuer>:<account>?secret=<base32>&issuer=<issuer>`, the
    /// label percent-encoded as a path, the issuer as a query value, the secret the unpadded
    /// base32 of the key's bytes.
    public func uri(account: String, issuer: String) -> String {
        var queryValue = CharacterSet.urlQueryAllowed
        queryValue.remove(charactersIn: "&=+#")
        var pathSegment = CharacterSet.urlPathAllowed
        pathSegment.insert(":")
        let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: pathSegment) ?? account
        let secret = manualEntry.replacingOccurrences(of: " ", with: "")
        return "otpauth://totp/\(label)?secret=\(secret)&issuer=\(issuer.addingPercentEncoding(withAllowedCharacters: queryValue) ?? "")"
    }

    /// The secret as typed into an authenticator by hand: base32 (RFC 4648) of the key's bytes,
    /// in groups of four.
    public var manualEntry: String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var output = "", buffer = 0, bits = 0
        for byte in secret.utf8 {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return stride(from: 0, to: output.count, by: 4).map { start in
            let begin = output.index(output.startIndex, offsetBy: start)
            return String(output[begin..<output.index(begin, offsetBy: min(4, output.count - start))])
        }.joined(separator: " ")
    }
}
