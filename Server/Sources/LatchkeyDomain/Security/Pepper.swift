import Crypto
import Foundation
import LatchkeyCore
import Logging

/// The server-side secret mixed into every credential hash and the key of the outbox cipher.
/// It lives outside the database: `LATCHKEY_PEPPER` (base64, ≥ 32 bytes) or the pepper file.
public enum Pepper {
    /// Loads the pepper. When it is missing and `generate` allows (a single server on SQLite), the
    /// file is created with a fresh secret (and a warning); otherwise (PostgreSQL, which replicas
    /// share) the server refuses: secrets are provided, never generated silently.
    /// Throws `ConfigurationError` naming the setting.
    public static func load(settings: SecretSettings, environment: [String: String] = ProcessInfo.processInfo.environment,
                            generate: Bool = true, logger: Logger) throws -> SymmetricKey {
        if let value = environment["LATCHKEY_PEPPER"] {
            return try decode(value, key: "LATCHKEY_PEPPER", what: "LATCHKEY_PEPPER")
        }
        let path = settings.pepperFile
        if FileManager.default.fileExists(atPath: path) { return try read(path, key: "secrets.pepperFile") }
        guard generate else { throw SecretFiles.missing(path, key: "secrets.pepperFile") }
        if !(try SecretFiles.generatePepper(settings)).isEmpty {
            logger.warning("Generated a new pepper; keep it safe and outside the database: losing it invalidates every credential.",
                           metadata: ["file": "\(path)"])
        }
        // Read back what was published (another server starting at once may have won).
        return try read(path, key: "secrets.pepperFile")
    }

    /// The peppers of before a rotation (`secrets.previousPepperFiles`, or `LATCHKEY_PREVIOUS_PEPPERS`).
    /// Throws `ConfigurationError` naming the setting when one is unreadable.
    public static func previous(settings: SecretSettings,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [SymmetricKey] {
        if let value = environment["LATCHKEY_PREVIOUS_PEPPERS"] {
            return try value.split(separator: ",").map {
                try decode(String($0), key: "LATCHKEY_PREVIOUS_PEPPERS", what: "Each entry of LATCHKEY_PREVIOUS_PEPPERS")
            }
        }
        return try settings.previousPepperFiles.map { try read($0, key: "secrets.previousPepperFiles") }
    }

    private static func read(_ path: String, key: String) throws -> SymmetricKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: key, message: "Cannot read \(path).")
        }
        return try decode(String(decoding: data, as: UTF8.self), key: key, what: path)
    }

    /// A pepper is base64 of at least 32 bytes.
    private static func decode(_ text: String, key: String, what: String) throws -> SymmetricKey {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count >= 32 else {
            throw ConfigurationError(key: key, message: "\(what) does not hold base64 of at least 32 bytes.")
        }
        return SymmetricKey(data: data)
    }
}
