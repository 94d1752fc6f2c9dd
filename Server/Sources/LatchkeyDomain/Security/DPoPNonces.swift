import Crypto
import Foundation
import LatchkeyCore
import Synchronization

/// The server's DPoP nonces (RFC 9449 §8), stateless so every replica issues and accepts the same
/// ones: a nonce names a one-minute window and carries an HMAC of that window and the device key's
/// thumbprint, under a key derived from the pepper. A nonce is accepted in its window and the next,
/// so it is good for 60 to 120 seconds, and only in proofs by the key it was handed to: a proof
/// signed ahead of time (by a stolen key, or a device whose key was copied) is usable for two
/// minutes at most, and a nonce seen by one client is worth nothing to another.
public struct DPoPNonces: Sendable {
    package let key: SymmetricKey
    /// Seconds per window.
    package static let windowSeconds: Int64 = 60

    /// The current window's nonces of the keys seen in it: every answer to a proved request
    /// carries one, and a device sends many requests a minute.
    private let memo = NonceMemo()

    public init(pepper: SymmetricKey) {
        key = PepperPurpose.dpopNonce.key(from: pepper)
    }

    /// The nonce to hand to the holder of the key with this RFC 7638 thumbprint now (`DPoP-Nonce`).
    public func current(for thumbprint: String, at time: Date) -> String {
        let window = Self.window(at: time)
        if let known = memo.nonce(of: thumbprint, window: window) { return known }
        let fresh = String(window, radix: 36) + "." + mac(window: window, thumbprint: thumbprint).base64URL
        memo.keep(fresh, of: thumbprint, window: window)
        return fresh
    }

    /// Whether `nonce` was handed to this key in the current window or the previous one.
    package func isValid(_ nonce: String, for thumbprint: String, at time: Date) -> Bool {
        guard let dot = nonce.firstIndex(of: "."), let window = Int64(nonce[..<dot], radix: 36),
              let given = Data(base64URL: String(nonce[nonce.index(after: dot)...])) else { return false }
        let now = Self.window(at: time)
        guard window == now || window == now - 1 else { return false }
        return ConstantTime.equal(given, mac(window: window, thumbprint: thumbprint))
    }

    private static func window(at time: Date) -> Int64 { Int64(time.timeIntervalSince1970) / windowSeconds }

    private func mac(window: Int64, thumbprint: String) -> Data {
        var message = withUnsafeBytes(of: window.bigEndian) { Data($0) }
        message.append(contentsOf: thumbprint.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).prefix(16)
    }
}

/// The nonces handed out in the current window, at most `limit` keys (then computed each time).
private final class NonceMemo: Sendable {
    static let limit = 10_000
    private let state = Mutex<(window: Int64, nonces: [String: String])>((0, [:]))

    func nonce(of thumbprint: String, window: Int64) -> String? {
        state.withLock { $0.window == window ? $0.nonces[thumbprint] : nil }
    }

    func keep(_ nonce: String, of thumbprint: String, window: Int64) {
        state.withLock { state in
            if state.window != window { state = (window, [:]) }
            if state.nonces.count < Self.limit { state.nonces[thumbprint] = nonce }
        }
    }
}
