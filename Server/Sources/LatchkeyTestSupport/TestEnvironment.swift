import Crypto
import Foundation
import Logging
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// Builds servers and stores for tests the way the CLI does, with fast hashing, a fixed pepper,
/// a temporary directory and the file courier.
public enum TestEnvironment {
    /// The engines the storage suite runs on: SQLite always, PostgreSQL when
    /// `LATCHKEY_TEST_POSTGRES_URL` is set.
    public static var engines: [String] {
        ["sqlite"] + (postgresURL == nil ? [] : ["postgres"])
    }

    public static var postgresURL: String? { ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"] }

    /// A logger that stays quiet unless `LOG_LEVEL` says otherwise.
    public static var logger: Logger {
        var logger = Logger(label: "latchkey-test")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }

    /// A fresh temporary directory.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A database URL for a fresh, empty database of `engine`: a new SQLite file, or a new
    /// PostgreSQL schema.
    public static func freshDatabase(_ engine: String) async throws -> String {
        if engine == "postgres", let base = postgresURL {
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            // Bounded at 30 s like the stores of the tests: a schema's creation waits for the disk.
            try await StoreFactory.withStore(base, logger: logger, migrate: false, timeout: .seconds(30)) { admin in
                try await (admin as! SQLStore).engine.execute("CREATE SCHEMA \(schema)")
            }
            return base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)"
        }
        return "sqlite:" + (try temporaryDirectory().appendingPathComponent("test.sqlite").path)
    }

    /// Runs `body` with a fresh, migrated store of `engine`, its background work running beside it.
    /// Its PostgreSQL calls are bounded at 30 s like the servers' of the tests: suites run in
    /// parallel on few cores, and the production second let a contract test's parallel
    /// transactions time out as `unavailable` under CI's load.
    public static func withFreshStore(_ engine: String, _ body: (any LatchkeyStore) async throws -> Void) async throws {
        try await StoreFactory.withStore(try await freshDatabase(engine), logger: logger, timeout: .seconds(30)) { try await body($0) }
    }

    /// A configuration for tests: port 0, fast scrypt, file courier in a temporary directory, rate
    /// limits off (tests that are about them turn them on), `deviceBinding: optional`: most HTTP
    /// tests speak the header-based migration mode without proofs; the device-binding suites
    /// (`DPoPTests`, `DeviceKeyTests`, `CertificateProofTests`) and the SDK suite set `required`,
    /// the default.
    public static func configuration(database: String) throws -> ServerConfiguration {
        let directory = try temporaryDirectory()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database = database
        configuration.hashing = HashingSettings(logN: 10, r: 8, p: 1)
        // Suites run in parallel on few cores: only the tests about back-pressure (`HashGateTests`)
        // set a limit a burst of cheap hashes could reach.
        configuration.hashing.maxQueueMilliseconds = 60_000
        // Suites in parallel can keep PostgreSQL busy past the production timeout.
        configuration.databaseTimeoutMilliseconds = 30_000
        configuration.secrets = try sharedSecrets.get()
        configuration.courier.channel = .file
        configuration.courier.path = directory.appendingPathComponent("outbox.jsonl").path
        configuration.courier.pollIntervalMilliseconds = 50
        configuration.rateLimits.enabled = false
        configuration.issuer.deviceBinding = .optional
        return configuration
    }

    /// The test servers' CA (and an unused pepper file: tests pass `pepper`), created once per
    /// process as `latchkey secrets generate` would: every test server of one database agrees on
    /// its secrets, like the replicas of a cluster, and none is generated on PostgreSQL.
    private static let sharedSecrets = Result<SecretSettings, any Error> {
        let directory = try temporaryDirectory()
        var settings = SecretSettings()
        settings.pepperFile = directory.appendingPathComponent("pepper").path
        settings.caKeyFile = directory.appendingPathComponent("ca-key.pem").path
        settings.caCertificateFile = directory.appendingPathComponent("ca-cert.pem").path
        settings.sealKeyFile = directory.appendingPathComponent("seal-key.pem").path
        try SecretFiles.generate(settings: settings, issuerName: IssuerSettings().name)
        return settings
    }

    /// A fixed pepper for tests.
    public static let pepper = SymmetricKey(data: Data(repeating: 7, count: 32))

    /// Builds the server as `latchkey serve` does, with the test pepper.
    public static func application(_ configuration: ServerConfiguration, now: @escaping @Sendable () -> Date = Date.init,
                                   channel: (any MessageChannel)? = nil, runCourier: Bool = false) async throws
        -> LatchkeyApplication {
        try await buildApplication(configuration, options: BuildOptions(
            logger: logger, now: now, pepper: pepper, channel: channel, runCourier: runCourier))
    }
}
