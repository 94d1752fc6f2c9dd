import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey secrets generate`: the pepper and the device-certificate CA, written once.
struct Secrets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create the secrets every server of one database shares.", subcommands: [Generate.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: """
            Write the pepper and the CA key and certificate to the files the configuration names (secrets.*), \
            each 0600; files that exist are kept. Copy them to every server of the database.
            """)
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let configuration = try options.resolve()
            let written = try SecretFiles.generate(settings: configuration.secrets, issuerName: configuration.issuer.name)
            let all = [configuration.secrets.pepperFile, configuration.secrets.caKeyFile, configuration.secrets.caCertificateFile]
            for path in all { print("\(written.contains(path) ? "written" : "kept (exists)")\t\(path)") }
        }
    }
}
