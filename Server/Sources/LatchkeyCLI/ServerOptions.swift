import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Logging

/// `--host`, `--port`, `--database`, `--config`, each also read from `LATCHKEY_…`.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on (LATCHKEY_HOST; default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (LATCHKEY_PORT; default 8080).") var port: Int?
    @Option(help: "sqlite:PATH, sqlite::memory: or postgres://… (LATCHKEY_DATABASE; default sqlite:./latchkey.sqlite).")
    var database: String?
    @Option(help: "YAML or JSON configuration file (LATCHKEY_CONFIG).") var config: String?

    /// The configuration: file, then environment, then flags.
    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let file = config ?? environment["LATCHKEY_CONFIG"] {
            configuration = try ServerConfiguration.load(file: file)
        }
        if let value = host ?? environment["LATCHKEY_HOST"] { configuration.host = value }
        if let value = environment["LATCHKEY_PORT"], port == nil {
            guard let parsed = Int(value) else { throw ConfigurationError(key: "LATCHKEY_PORT", message: "Must be a number.") }
            configuration.port = parsed
        }
        if let port { configuration.port = port }
        if let value = database ?? environment["LATCHKEY_DATABASE"] { configuration.database = value }
        try configuration.validate()
        return configuration
    }
}

/// The CLI's logger; `metadataProvider` adds the current span's ids to each line when tracing is on.
func makeLogger(level: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil) -> Logger {
    var logger = metadataProvider.map { Logger(label: "latchkey", metadataProvider: $0) } ?? Logger(label: "latchkey")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? level
    return logger
}
