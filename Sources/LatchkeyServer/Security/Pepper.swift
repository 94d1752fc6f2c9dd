import Crypto
import Foundation
import LatchkeyCore
import Logging

/// The server-side secret mixed into every credential hash and the key of the outbox cipher.
/// It lives outside the database: `LATCHKEY_PEPPER` (base64, ≥ 32 bytes) or the pepper file.
public enum Pepper {
    /// Loads the pepper, creating the file with a fresh secret (and a warning) on first start.
    public static func load(settings: SecretSettings, environment: [String: String] = ProcessInfo.processInfo.environment,
                            logger: Logger) throws -> SymmetricKey {
        if let value = environment["LATCHKEY_PEPPER"] {
            guard let data = Data(base64Encoded: value), data.count >= 32 else {
                throw ConfigurationError(key: "LATCHKEY_PEPPER", message: "Must be base64 of at least 32 bytes.")
            }
            return SymmetricKey(data: data)
        }
        let path = settings.pepperFile
        if let data = FileManager.default.contents(atPath: path) {
            guard let decoded = Data(base64Encoded: String(decoding: data, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)), decoded.count >= 32 else {
                throw ConfigurationError(key: "secrets.pepperFile", message: "\(path) does not hold base64 of at least 32 bytes.")
            }
            return SymmetricKey(data: decoded)
        }
        let secret = Data(SecureRandom.bytes(32))
        do {
            try PrivateFile.create(path, contents: Data(secret.base64EncodedString().utf8))
        } catch {
            throw ConfigurationError(key: "secrets.pepperFile", message: "Cannot create \(path): \(error)")
        }
        logger.warning("Generated a new pepper; keep it safe and outside the database: losing it invalidates every credential.",
                       metadata: ["file": "\(path)"])
        return SymmetricKey(data: secret)
    }
}
