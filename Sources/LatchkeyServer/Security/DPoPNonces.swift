import Crypto
import Foundation
import Synchronization

/// The server's DPoP nonces (RFC 9449 §8), stateless so every replica issues and accepts the same
/// ones: a nonce is a time window and an HMAC of it under a key derived from the pepper. A nonce
/// is accepted in its window and the next, so one is good for 5 to 10 minutes.
public struct DPoPNonces: Sendable {
    let key: SymmetricKey
    /// Seconds per window.
    static let windowSeconds: Int64 = 300

    /// The current window's nonce, which every answer to a proved request carries: computed once
    /// per window instead of an HMAC per answer.
    private let memo = NonceMemo()

    public init(pepper: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: pepper, info: Data("latchkey dpop nonce v1".utf8), outputByteCount: 32)
    }

    /// The nonce to hand out now (`DPoP-Nonce`).
    public func current(at time: Date) -> String {
        let window = Int64(time.timeIntervalSince1970) / Self.windowSeconds
        if let cached = memo.value.withLock({ $0 }), cached.window == window { return cached.nonce }
        let fresh = nonce(window: window)
        memo.value.withLock { $0 = (window, fresh) }
        return fresh
    }

    /// Whether `nonce` is the current window's or the previous one's.
    func isValid(_ nonce: String, at time: Date) -> Bool {
        let window = Int64(time.timeIntervalSince1970) / Self.windowSeconds
        return nonce == self.nonce(window: window) || nonce == self.nonce(window: window - 1)
    }

    private func nonce(window: Int64) -> String {
        let message = withUnsafeBytes(of: window.bigEndian) { Data($0) }
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return String(window, radix: 36) + "." + Data(mac).prefix(16).base64URL
    }
}

private final class NonceMemo: Sendable {
    let value = Mutex<(window: Int64, nonce: String)?>(nil)
}
