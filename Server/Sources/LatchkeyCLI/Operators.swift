import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL

extension OperatorRole: ExpressibleByArgument {}

/// `latchkey operators …`: the console's operator accounts and the admin API's keys.
struct Operators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Administer operators (the console's accounts) and the admin API's keys.",
                                                    subcommands: [Create.self, Reset.self, List.self, Keys.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a console operator; prints a one-time setup link (a day) to set a password and an authenticator.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The operator's email address (their sign-in name).") var email: String
        @Option(help: "viewer (reads), support (also acts on users, devices and sessions) or admin (also erases users).")
        var role: OperatorRole

        func run() async throws {
            try await withOperatorStore(options) { store, configuration in
                let (account, token) = try await ConsoleService.createOperator(email: email, role: role, store: store)
                printSetupLink(configuration, token)
                FileHandle.standardError.write(Data("""
                    Operator \(account.email) (\(account.role.rawValue)). Send the link above to them only: it works once, for a day.

                    """.utf8))
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A new setup link for an operator (a lost authenticator or password): the old ones stop working, their sign-ins end.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The operator's email address.") var email: String

        func run() async throws {
            try await withOperatorStore(options) { store, configuration in
                printSetupLink(configuration, try await ConsoleService.resetOperator(email: email, store: store))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the console's operators.")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await withOperatorStore(options) { store, _ in
                for account in try await store.operatorAccounts() {
                    let state = account.isSetUp ? "active" : account.setupDigest != nil ? "awaiting setup" : "inactive"
                    print([account.email, account.role.rawValue, state, "created=\(account.createdAt.formatted(.iso8601))"]
                        .joined(separator: "\t"))
                }
            }
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Operators' API keys for the admin API.",
                                                        subcommands: [Create.self, List.self, Revoke.self])
    }
}

extension Operators.Keys {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key; it is printed this once (only its digest is stored).")
        @OptionGroup var options: ServerOptions
        @Option(help: "Who or what holds it, e.g. support-desk.") var name: String
        @Option(help: "viewer (reads), support (also acts on users, devices and sessions) or admin (also erases users, imports and manages keys).")
        var role: OperatorRole
        @Option(help: "Days until it expires (1–\(OperatorKeys.maximumDays)).") var days = OperatorKeys.defaultDays

        func run() async throws {
            try await withOperatorKeys(options) { keys in
                let (record, key) = try await keys.createOperatorKey(name: name, role: role, days: days, for: .commandLine)
                print(key)
                FileHandle.standardError.write(Data("""
                    Key \(record.id) (\(record.role.rawValue), \(record.name)) expires \(record.expiresAt?.formatted(.iso8601) ?? "never").
                    Send it as `Authorization: Bearer <key>`. It is not shown again.

                    """.utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys, newest first (never the keys themselves).")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await withOperatorKeys(options) { keys in
                let now = Date()
                for key in try await keys.operatorKeys(for: .commandLine) {
                    let state = key.revokedAt != nil ? "revoked" : key.isUsable(at: now) ? "active" : "expired"
                    print([key.id, key.role.rawValue, state, key.name, "created=\(key.createdAt.formatted(.iso8601))",
                           "expires=\(key.expiresAt?.formatted(.iso8601) ?? "never")",
                           "last-used=\(key.lastUsedAt?.formatted(.iso8601) ?? "never")"].joined(separator: "\t"))
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key at once, on every replica.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The key's id (the part after lkop_).") var id: String

        func run() async throws {
            try await withOperatorKeys(options) { keys in
                try await keys.revokeOperatorKey(id: id, for: .commandLine)
                print("Key \(id) revoked.")
            }
        }
    }
}

/// Runs `body` with the keys of the configured database, as the admin API manages them; an
/// operator's mistake is a usage error.
private func withOperatorKeys(_ options: ServerOptions, _ body: (OperatorKeyAdministration) async throws -> Void) async throws {
    try await withOperatorStore(options) { store, configuration in
        try await body(OperatorKeyAdministration(keys: OperatorKeys(store: store),
                                                 trail: OperatorTrail(store: store, issuer: configuration.issuer)))
    }
}

/// Prints the console's setup page for `token` (`ServerConfiguration.consoleSetupLink`): the link
/// on standard output, for scripts; when it is only a path, the note saying where to open it on
/// standard error.
private func printSetupLink(_ configuration: ServerConfiguration, _ token: String) {
    let setup = configuration.consoleSetupLink(token: token)
    print(setup.link)
    if let note = setup.note { FileHandle.standardError.write(Data((note + "\n").utf8)) }
}
