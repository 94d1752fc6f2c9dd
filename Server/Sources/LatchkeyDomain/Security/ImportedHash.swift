import Crypto
import CryptoExtras
import Foundation

/// A password hash another system made, brought in by `latchkey users import`: it verifies as it
/// is (no pepper: the other system had none of ours) and is replaced by Latchkey's own hash at the
/// next successful check (`SecretHasher.needsUpgrade` is true for every imported hash).
///
/// The formats, exactly as their systems store them:
/// - Django (and django-allauth, which stores Django's): `pbkdf2_sha256$<iterations>$<salt>$<base64>`,
///   `pbkdf2_sha1$…` and `scrypt$<N>$<salt>$<r>$<p>$<base64>`; the salt is used as text.
/// - PHC strings (passlib, `@phc/*`): `$pbkdf2-sha256$<iterations>$<salt>$<hash>`, `$pbkdf2-sha512$…`
///   (rounds also as `i=<n>`), `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`; salt and hash in
///   base64 without padding, passlib's `.` for `+` accepted.
package struct ImportedHash: Sendable, Equatable {
    package enum Function: Sendable, Equatable {
        case pbkdf2(PBKDF2Digest, iterations: Int)
        case scrypt(logN: Int, r: Int, p: Int)
    }

    package enum PBKDF2Digest: Sendable, Equatable { case sha1, sha256, sha512 }

    package let function: Function
    package let salt: [UInt8]
    package let expected: [UInt8]

    /// Limits on what a hash may ask of the server, so an imported line cannot make one check
    /// cost minutes or gigabytes: the strongest settings in use are well inside them.
    package static let maxIterations = 10_000_000
    package static let maxScryptMemory = 256 * 1024 * 1024

    /// The hash in `encoded`, or nil when it is none of the formats (or asks for too much work).
    package static func parse(_ encoded: String) -> ImportedHash? {
        let hash = encoded.hasPrefix("$") ? parsePHC(encoded) : parseDjango(encoded)
        guard let hash, (16...64).contains(hash.expected.count), !hash.salt.isEmpty, hash.salt.count <= 64 else { return nil }
        switch hash.function {
        case .pbkdf2(_, let iterations):
            guard (1...maxIterations).contains(iterations) else { return nil }
        case .scrypt(let logN, let r, let p):
            // scrypt's memory is 128·r·N bytes (and p·128·r for the mixing), as BoringSSL counts it.
            guard (1...24).contains(logN), (1...32).contains(r), (1...16).contains(p),
                  128 * r * ((1 << logN) + p + 2) <= maxScryptMemory else { return nil }
        }
        return hash
    }

    private static func parseDjango(_ encoded: String) -> ImportedHash? {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "pbkdf2_sha256", "pbkdf2_sha1":
            guard parts.count == 4, let iterations = Int(parts[1]), !parts[2].isEmpty,
                  let expected = Data(base64Encoded: parts[3]) else { return nil }
            return ImportedHash(function: .pbkdf2(parts[0] == "pbkdf2_sha1" ? .sha1 : .sha256, iterations: iterations),
                                salt: Array(parts[2].utf8), expected: Array(expected))
        case "scrypt":
            // Django's order is N, salt, r, p; Latchkey's own (`scrypt$logN$r$p$…`) is told apart
            // by the salt, which is never a number in Django's.
            guard parts.count == 6, let n = Int(parts[1]), n > 1, n & (n - 1) == 0, Int(parts[2]) == nil, !parts[2].isEmpty,
                  let r = Int(parts[3]), let p = Int(parts[4]), let expected = Data(base64Encoded: parts[5]) else { return nil }
            return ImportedHash(function: .scrypt(logN: n.trailingZeroBitCount, r: r, p: p), salt: Array(parts[2].utf8),
                                expected: Array(expected))
        default:
            return nil
        }
    }

    private static func parsePHC(_ encoded: String) -> ImportedHash? {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0].isEmpty, let salt = phcBase64(parts[3]), let expected = phcBase64(parts[4]) else {
            return nil
        }
        let parameters = phcParameters(parts[2])
        switch parts[1] {
        case "pbkdf2-sha256", "pbkdf2-sha512", "pbkdf2":
            guard let iterations = Int(parts[2]) ?? parameters["i"] else { return nil }
            let digest: PBKDF2Digest = parts[1] == "pbkdf2-sha256" ? .sha256 : parts[1] == "pbkdf2-sha512" ? .sha512 : .sha1
            return ImportedHash(function: .pbkdf2(digest, iterations: iterations), salt: salt, expected: expected)
        case "scrypt":
            guard let logN = parameters["ln"], let r = parameters["r"], let p = parameters["p"], parameters.count == 3 else {
                return nil
            }
            return ImportedHash(function: .scrypt(logN: logN, r: r, p: p), salt: salt, expected: expected)
        default:
            return nil
        }
    }

    /// `ln=16,r=8,p=1` as numbers; a part that is not `name=number` is left out.
    private static func phcParameters(_ text: String) -> [String: Int] {
        var result: [String: Int] = [:]
        for pair in text.split(separator: ",") {
            let halves = pair.split(separator: "=", maxSplits: 1)
            if halves.count == 2, let value = Int(halves[1]) { result[String(halves[0])] = value }
        }
        return result
    }

    /// Base64 without padding, in the standard alphabet or passlib's (`.` for `+`).
    private static func phcBase64(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, !text.contains("=") else { return nil }
        var standard = text.replacingOccurrences(of: ".", with: "+")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }

    /// Whether `secret` derives the expected bytes, compared in constant time. Slow: run it off the
    /// event loop.
    package func matches(_ secret: String) throws -> Bool {
        let password = Data(secret.utf8)
        let derived: SymmetricKey
        switch function {
        case .pbkdf2(let digest, let iterations):
            let function: KDF.Insecure.PBKDF2.HashFunction = switch digest {
            case .sha1: .insecureSHA1
            case .sha256: .sha256
            case .sha512: .sha512
            }
            derived = try KDF.Insecure.PBKDF2.deriveKey(from: password, salt: salt, using: function,
                                                        outputByteCount: expected.count, unsafeUncheckedRounds: iterations)
        case .scrypt(let logN, let r, let p):
            derived = try KDF.Scrypt.deriveKey(from: password, salt: salt, outputByteCount: expected.count, rounds: 1 << logN,
                                               blockSize: r, parallelism: p, maxMemory: Self.maxScryptMemory + 1024 * 1024)
        }
        return derived.withUnsafeBytes { ConstantTime.equal($0, expected) }
    }
}
