import Foundation

/// Where a secret setting's value is read from: a file (`{ file: /run/secrets/smtp }`) or an
/// environment variable (`{ env: SMTP_PASSWORD }`), never the configuration file itself.
public struct SecretReference: Codable, Sendable, Equatable {
    /// A file whose content (without a trailing newline) is the secret.
    public var file: String?
    /// An environment variable that holds the secret.
    public var env: String?

    public init(file: String? = nil, env: String? = nil) {
        self.file = file
        self.env = env
    }

    /// The secret's value.
    /// - Throws: `ConfigurationError` at `key` when neither or both sources are given, the file
    ///   cannot be read or the variable is unset or empty. The message never holds the value.
    public func read(key: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        switch (file, env) {
        case (let path?, nil):
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(key: "\(key).file", message: "Cannot read \(path).")
            }
            let value = text.hasSuffix("\r\n") ? String(text.dropLast(2)) : text.hasSuffix("\n") ? String(text.dropLast()) : text
            guard !value.isEmpty else { throw ConfigurationError(key: "\(key).file", message: "\(path) is empty.") }
            return value
        case (nil, let name?):
            guard let value = environment[name], !value.isEmpty else {
                throw ConfigurationError(key: "\(key).env", message: "The environment variable \(name) is unset or empty.")
            }
            return value
        default:
            throw ConfigurationError(key: key, message: "Give the secret as { file: PATH } or { env: NAME }, one of the two.")
        }
    }
}

extension SecretReference: SettingSample {
    package static var settingSample: Self { Self(file: "", env: "") }
}
