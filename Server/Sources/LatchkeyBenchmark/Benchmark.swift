import ArgumentParser
import AsyncHTTPClient
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Logging
import NIOCore

/// `latchkey-bench`: drives a server with N concurrent connections for D seconds per operation
/// and prints requests/s with p50/p99, next to the `/health` baseline and the raw hash rate.
@main
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "latchkey-bench")
    @Option(help: "A running server; without it an in-process server on a temporary SQLite file is used.") var url: String?
    @Option(help: "Concurrent connections.") var connections = 16
    @Option(help: "Seconds per operation.") var duration = 5.0
    @Option(help: "Seconds for the registration operation.") var registrationDuration = 10.0
    @Option(help: "Configuration file of the server (for the hash parameters).") var config: String?
    @Flag(help: "Only the session check and its /health baseline (for profiling).") var sessionOnly = false
    @Option(help: "Keep the rate limits on, with limits no run reaches, counted in `memory` or the `database` (their cost).")
    var rateLimits: RateLimitSettings.Counting?
    @Option(help: "Identities to measure logins and the session check at, e.g. 10000,1000000 (imported; cheap hashing).")
    var scale: String?
    @Option(help: "Interleaved rounds of --scale (the median p99 of each operation and size is kept) and of --smtp (the median rate).") var rounds = 5
    @Option(help: "Users and audit events to measure the admin API at, e.g. 1000000,10000000 (kept in --database).")
    var adminScale: String?
    @Option(help: "A mail relay, HOST:PORT with STARTTLS: messages/s through the smtp channel with and without connection reuse (Scripts/bench-smtp).")
    var smtp: String?
    @Option(help: "With --smtp: the PEM file of the CA the relay's certificate chains to (without it, the certificate is not checked).")
    var smtpCaFile: String?
    @Option(help: "With --smtp: messages per round.") var smtpMessages = 300
    @Option(help: "Database of the in-process server (default: a temporary SQLite file), e.g. postgres://…; with --url and --session-only, the database of that server, where the bound session is prepared") var database: String?

    func run() async throws {
        let configuration = try config.map(ServerConfiguration.load(file:)) ?? ServerConfiguration()
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        if let smtp {
            try await SMTPBenchmark.run(relay: smtp, caFile: smtpCaFile, messages: smtpMessages, rounds: max(1, rounds), logger: logger)
            return
        }
        if let adminScale {
            let sizes = adminScale.split(separator: ",").compactMap { Int($0) }
            guard sizes.count == 2 else { throw ValidationError("--admin-scale takes users,events, e.g. 1000000,10000000") }
            try await AdminScaleBenchmark.run(users: sizes[0], events: sizes[1], database: database, connections: connections,
                                              seconds: duration, logger: logger)
            return
        }
        if let scale {
            let sizes = scale.split(separator: ",").compactMap { Int($0) }
            guard !sizes.isEmpty else { throw ValidationError("--scale takes numbers, e.g. 10000,1000000") }
            try await ScaleBenchmark.run(sizes: sizes, database: database, connections: connections, seconds: duration,
                                           rounds: max(1, rounds), logger: logger)
            return
        }
        print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
              + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)")
        print("hashing: scrypt logN=\(configuration.hashing.logN) r=\(configuration.hashing.r) p=\(configuration.hashing.p)")
        let hashRate = try await Self.rawHashRate(configuration.hashing, seconds: duration)
        print(String(format: "raw hash rate: %.1f hashes/s (all cores)", hashRate))
        try SealingBenchmark.run(hashRate: hashRate, seconds: min(duration, 2))

        var served: InProcessServer?
        let capture = CodeCapture()
        let base: URL
        if let url, let parsed = URL(string: url) {
            base = parsed
        } else {
            let server = try await InProcessServer.start(logger: logger, channel: capture) { [database] in
                $0.courier.pollIntervalMilliseconds = 5
                $0.hashing = configuration.hashing
                $0.issuer = configuration.issuer
                // The logins are measured without proofs (the hash is what they cost); the bound
                // session check measures the one ES256 verification a proof adds.
                $0.issuer.deviceBinding = .optional
                if let database { $0.database = database }
                $0.issuer.lockout.walletThreshold = 1000
                $0.issuer.lockout.deviceThreshold = 1000
                $0.rateLimits.enabled = false
                if let rateLimits {
                    $0.rateLimits = RateLimitSettings()
                    $0.rateLimits.counting = rateLimits
                    $0.rateLimits.requestsPerMinutePerIP = 1_000_000_000
                    $0.rateLimits.credentialAttemptsPerMinutePerAccount = 1_000_000_000
                }
            }
            print("in-process server on \(server.url), database \(server.application.store.databaseEngine.rawValue), "
                  + "rate limits \(rateLimits.map { "on, counted in \($0.rawValue)" } ?? "off")")
            served = server
            base = server.url
        }
        let driver = LoadDriver(base: base, connections: connections)
        let health = try await driver.measure("GET /health", seconds: duration) { _ in .init(path: "/health") }
        health.print(baseline: nil)
        let questions = configuration.issuer.mfa.questions.prefix(configuration.issuer.mfa.numberOfRequiredQuestions)
        if sessionOnly, served == nil, let database {
            try await BoundSession.measureExternal(database: database, issuer: configuration.issuer.id, driver: driver,
                                                   seconds: duration, health: health, logger: logger)
            try await driver.shutdown()
            return
        }
        if sessionOnly, let app = served?.application {
            let user = try await BenchmarkUser.prepare(app: app, driver: driver, questions: questions.map(\.mfaQuestion))
            try await user.measureSession(driver: driver, seconds: duration, health: health, app: app)
            try await driver.shutdown()
            try await served?.stop()
            return
        }
        for path in ["/v1/enrollment/mfa-questions", "/v1/enrollment/password-configuration",
                     "/v1/enrollment/passcode-configuration", "/v1/enrollment/profile-metadata"] {
            try await driver.measure("GET \(path)", seconds: duration) { _ in .init(path: path) }.print(baseline: health)
        }
        let hashesPerRegistration = 2 + questions.count
        let run = UUID().uuidString.prefix(8)
        let registration = try await driver.measure("POST /v1/enrollment/users", seconds: registrationDuration) { index in
            let answers = questions.enumerated().map { "\"\($1.mfaQuestion.replacingOccurrences(of: "\"", with: "\\\""))\": \"answer \($0)\"" }
            let body = """
                {"userProfile": {"firstName": "Bench", "lastName": "Mark", "email": "bench-\(run)-\(index)@example.com",
                "password": "benchmark-pass-1", "confirmPassword": "benchmark-pass-1", "passcode": "314159",
                "confirmPasscode": "314159", "mfaAnswers": {\(answers.joined(separator: ","))}}}
                """
            return .init(path: "/v1/enrollment/users", method: .POST, body: body)
        }
        registration.print(baseline: nil)
        let ratio = registration.rate * Double(hashesPerRegistration) / hashRate
        print(String(format: "registration: %d hashes each, %.0f%% of the raw hash rate (target ≥ 90%%)",
                     hashesPerRegistration, ratio * 100))
        if let app = served?.application {
            let user = try await BenchmarkUser.prepare(app: app, driver: driver, questions: questions.map(\.mfaQuestion))
            try await user.measure(driver: driver, seconds: duration, health: health, hashRate: hashRate, app: app)
            try await Self.measureSignup(driver: driver, capture: capture, seconds: registrationDuration, hashRate: hashRate)
        } else {
            print("login and sign-up operations: run without --url (they need the in-process server's store and courier)")
        }
        try await driver.shutdown()
        try await served?.stop()
    }

    static func rawHashRate(_ settings: HashingSettings, seconds: Double) async throws -> Double {
        let hasher = SecretHasher(settings: settings, pepper: .init(size: .bits256))
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let workers = ProcessInfo.processInfo.activeProcessorCount
        let start = ContinuousClock.now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var done = 0
                    while ContinuousClock.now < deadline {
                        _ = try await hasher.hash("benchmark-pass-1")
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - start
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
extension RateLimitSettings.Counting: ExpressibleByArgument {}
