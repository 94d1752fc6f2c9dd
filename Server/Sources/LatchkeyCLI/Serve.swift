import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey serve`: runs the server until SIGINT/SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server.")
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.resolve()
        let tracing = try TracingSetup.bootstrap(configuration.telemetry.tracing, logger: makeLogger())
        let logger = makeLogger(metadataProvider: tracing?.metadata)
        var build = BuildOptions(logger: logger, onServerRunning: { port in
            let line = "Latchkey listening on http://\(configuration.host):\(port) "
                + "(database \(DatabaseURL.redacted(configuration.database)), courier \(configuration.courier.channel.rawValue))\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        })
        build.services = tracing.map { [$0.service] } ?? []
        let app = try await buildApplication(configuration, options: build)
        try await app.run()
    }
}

/// `latchkey migrate`: applies the schema versions not yet applied, then exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply database migrations.")
    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.resolve()
        let (applied, all) = try await StoreFactory.withStore(configuration.database, logger: makeLogger(), migrate: false) { store in
            (try await store.migrate(), try await store.appliedMigrations())
        }
        print(applied.isEmpty ? "Schema is up to date (versions \(all))." : "Applied migrations \(applied); schema at \(all.max() ?? 0).")
    }
}

/// `latchkey config check FILE`.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Configuration tools.", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a configuration file and report the first bad key.")
        @Argument(help: "The YAML or JSON file.") var file: String

        func run() async throws {
            do {
                let configuration = try ServerConfiguration.load(file: file)
                try TracingSetup.check(configuration.telemetry.tracing)
                let catalog = try TextCatalog.load(configuration.languages)
                print("\(file): OK (issuer \"\(configuration.issuer.name)\", courier \(configuration.courier.channel.rawValue), "
                      + "\(configuration.issuer.mfa.questions.count) MFA questions)")
                for line in catalog.coverageReport { print(line) }
                // Every message template, built-in and the issuer's, rendered with sample values.
                for line in try MessageCatalog.load(overrides: configuration.courier.templates).checkReport { print(line) }
            } catch let error as ConfigurationError {
                print("\(file): \(error)")
                throw ExitCode.failure
            }
        }
    }
}
