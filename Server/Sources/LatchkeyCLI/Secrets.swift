import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey secrets generate`: the pepper, the device-certificate CA and the seal key, written once.
struct Secrets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create the secrets every server of one database shares.", subcommands: [Generate.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: """
            Write the pepper, the CA key and certificate and the HPKE seal key (sealed credentials) to the \
            files the configuration names (secrets.*), each 0600; files that exist are kept. Copy them to \
            every server of the database. Prints the seal key's id and pin, which apps may pin.
            """)
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let configuration = try options.resolve()
            let written = try SecretFiles.generate(settings: configuration.secrets, issuerName: configuration.issuer.name)
            let all = [configuration.secrets.pepperFile, configuration.secrets.caKeyFile, configuration.secrets.caCertificateFile,
                       configuration.secrets.sealKeyFile]
            for path in all { print("\(written.contains(path) ? "written" : "kept (exists)")\t\(path)") }
            // The pin is public (a digest of the public key): apps that pin it refuse a key a proxy serves.
            let keyring = try SealKeyring.load(file: configuration.secrets.sealKeyFile, previous: [])
            print("seal key\tid \(keyring.current.id)\tpin (LatchkeyContext.sealKeyPins) \(keyring.current.pin)")
        }
    }
}
