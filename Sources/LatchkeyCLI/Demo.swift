import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer

/// `latchkey demo`: walks the enrollment journey through the SDK and prints each step. Without
/// `--server` it starts its own server on a temporary database and reads its outbox file.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Walk every flow through the SDK against a server.")
    @Option(help: "A running server's URL; without it the demo starts its own.") var server: String?
    @Option(help: "The application signature to send.") var applicationSignature = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"

    func run() async throws {
        if let server {
            guard let url = URL(string: server) else { throw ValidationError("--server must be a URL") }
            try await DemoJourney(serverURL: url, signature: applicationSignature, outbox: nil).run()
            return
        }
        let server = try await InProcessServer.start(logger: makeLogger(level: .error)) { configuration in
            configuration.courier.pollIntervalMilliseconds = 100
            configuration.rateLimits.credentialAttemptsPerMinutePerAccount = 30
        }
        print("Started an in-process server on \(server.url) (temporary SQLite database)")
        do {
            try await DemoJourney(serverURL: server.url, signature: applicationSignature,
                                  outbox: server.application.configuration.courier.path).run()
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }
}
