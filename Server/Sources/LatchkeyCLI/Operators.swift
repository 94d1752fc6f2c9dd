import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL

extension OperatorRole: ExpressibleByArgument {}

/// `latchkey operators …`: the admin API's keys (the console's accounts come with the console).
struct Operators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Administer operators and their API keys.",
                                                    subcommands: [Keys.self])

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
        @Option(help: "viewer (reads), support (also acts on users and sessions) or admin (support's calls today; erasing, imports and keys over the API are to come).")
        var role: OperatorRole
        @Option(help: "Days until it expires (1–\(OperatorKeys.maximumDays)).") var days = OperatorKeys.defaultDays

        func run() async throws {
            try await withOperatorKeys(options) { keys in
                let (record, key) = try await keys.create(name: name, role: role, days: days)
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
                for key in try await keys.list() {
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
                try await keys.revoke(id: id)
                print("Key \(id) revoked.")
            }
        }
    }
}

/// Runs `body` with the keys of the configured database; an operator's mistake is a usage error.
private func withOperatorKeys(_ options: ServerOptions, _ body: (OperatorKeys) async throws -> Void) async throws {
    try await withOperatorStore(options) { store, _ in try await body(OperatorKeys(store: store)) }
}
