import Crypto
import Foundation
import LatchkeyCore
import Logging

/// The server-side secret mixed into every credential hash and the key of the outbox cipher.
/// It lives outside the database: `LATCHKEY_PEPPER` (base64, ≥ 32 bytes) or the pepper file.
public enum Pepper {
    /// The peppers of before a rotation (`secrets.previousPepperFiles`, or `LATCHKEY_PREVIOUS_PEPPERS`).
    /// Throws `ConfigurationError` naming the setting when one is unreadable.
    public static func previous(settings: SecretSettings,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [SymmetricKey] {
        if let value = environment["LATCHKEY_PREVIOUS_PEPPERS"] {
            return try value.split(separator: ",").map {
                guard let data = Data(base64Encoded: String($0).trimmingCharacters(in: .whitespaces)), data.count >= 32 else {
                    throw ConfigurationError(key: "LATCHKEY_PREVIOUS_PEPPERS", message: "Each must be base64 of at least 32 bytes.")
                }
                return SymmetricKey(data: data)
            }
        }
        return try settings.previousPepperFiles.map { path in
            guard let data = FileManager.default.contents(atPath: path), let decoded = Data(base64Encoded: String(decoding: data, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)), decoded.count >= 32 else {
                throw ConfigurationError(key: "secrets.previousPepperFiles", message: "\(path) does not hold base64 of at least 32 bytes.")
            }
            return SymmetricKey(data: decoded)
        }
    }

    /// Loads the pepper. When it is missing and `generate` allows (a single server on SQLite), the
    /// file is created with a fresh secret (and a warning); otherwise (PostgreSQL, which replicas
    /// share) the server refuses: secrets are provided, never generated silently.
    public static func load(settings: SecretSettings, environment: [String: String] = ProcessInfo.processInfo.environment,
                            generate: Bool = true, logger: Logger) throws -> SymmetricKey {
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
        guard generate else { throw SecretFiles.missing(path, key: "secrets.pepperFile") }
        if !(try SecretFiles.generatePepper(settings)).isEmpty {
            logger.warning("Generated a new pepper; keep it safe and outside the database: losing it invalidates every credential.",
                           metadata: ["file": "\(path)"])
        }
        // Read back what was published (another server starting at once may have won).
        return try load(settings: settings, environment: [:], generate: false, logger: logger)
    }
}
