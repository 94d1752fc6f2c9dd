import ArgumentParser

/// The `latchkey` command: serve, migrate, check a configuration, run the demo.
@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Latchkey: a self-hostable identity platform for mobile wallets.",
        subcommands: [Serve.self, Migrate.self, Config.self, Secrets.self, Users.self, Operators.self, Audit.self, Demo.self],
        defaultSubcommand: Serve.self)
}
