import Foundation
import Testing

/// `latchkey serve` and `latchkey operators` as an operator runs them: the built binary, a
/// configuration file, signals.
@Suite struct ServeProcessTests {
    /// `latchkey operators create` prints the setup link on `admin.consoleURL` when the file sets
    /// it (a console behind a TLS proxy).
    @Test func theSetupLinkIsOnTheConsoleURL() async throws {
        let command = try LatchkeyProcess(settings: """
            admin: { enabled: true, consoleURL: "https://console.wallet.example/" }

            """)
        let run = try await command.run(["operators", "create", "desk@example.com", "--role", "viewer"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("https://console.wallet.example/console/setup?token="), "\(run.output)")
    }

    /// With `admin.port: 0` the server picks the console's port when it starts, which the
    /// command (another process) cannot know: it prints the path alone and says where to open
    /// it, never a link to port 0.
    @Test func withAPickedPortTheSetupLinkIsAPathAndANote() async throws {
        let command = try LatchkeyProcess(settings: "admin: { enabled: true, port: 0 }\n")
        let run = try await command.run(["operators", "create", "desk@example.com", "--role", "viewer"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.output.contains(":0/") && run.output.hasPrefix("/console/setup?token="), "\(run.output)")
        #expect(run.errors.contains("admin.port is 0") && run.errors.contains("admin.consoleURL"), "\(run.errors)")
    }
}
