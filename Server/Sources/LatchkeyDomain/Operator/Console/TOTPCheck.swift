import Foundation
import HummingbirdOTP

/// RFC 6238 codes as authenticator apps make them (SHA-1, 6 digits, 30-second steps), computed
/// by HummingbirdOTP; what this adds is the check: the step before and after the current one are
/// accepted for clock drift (RFC 6238 §5.2's one step of delay), and a step is accepted once
/// (`ConsoleStore.acceptOperatorTOTPStep`), so a code seen over a shoulder or in a log is spent.
public struct TOTPCheck: Sendable {
    public static let timeStep = 30
    /// Steps either side of the current one that are accepted.
    public static let window: Int64 = 1

    public let secret: String

    public init(secret: String) { self.secret = secret }

    /// A new secret: 160 random bits (RFC 4226 §4's recommendation) as 40 hex characters, whose
    /// ASCII bytes are the HMAC key (HummingbirdOTP keys with the secret's UTF-8).
    public static func newSecret() -> String {
        SecureRandom.bytes(20).map { String(format: "%02x", $0) }.joined()
    }

    /// The time step of `date`.
    public static func step(of date: Date) -> Int64 { Int64(floor(date.timeIntervalSince1970 / Double(timeStep))) }

    /// The code of `step` (`digits` long; SHA-1 unless told).
    public func code(step: Int64, digits: Int = 6, hash: OTPHashFunction = .sha1) -> String {
        let value = TOTP(secret: secret, length: digits, timeStep: Self.timeStep, hashFunction: hash)
            .compute(date: Date(timeIntervalSince1970: TimeInterval(step) * TimeInterval(Self.timeStep)))
        let text = String(value)
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

    /// The `otpauth://` URI an authenticator app reads (its secret the base32 of the key's bytes).
    public func uri(account: String, issuer: String) -> String {
        TOTP(secret: secret).createAuthenticatorURL(label: "\(issuer):\(account)", issuer: issuer)
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
