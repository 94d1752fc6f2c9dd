import ArgumentParser
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyServer
import ServiceLifecycle

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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database = "sqlite:" + directory.appendingPathComponent("demo.sqlite").path
        configuration.secrets.pepperFile = directory.appendingPathComponent("pepper").path
        configuration.courier.channel = .file
        configuration.courier.path = directory.appendingPathComponent("outbox.jsonl").path
        configuration.courier.pollIntervalMilliseconds = 100
        configuration.rateLimits.credentialAttemptsPerMinutePerAccount = 30
        let bound = PortBox()
        let app = try await buildApplication(configuration, options: BuildOptions(
            logger: makeLogger(level: .error), onServerRunning: { await bound.set($0) }))
        let group = ServiceGroup(configuration: .init(services: [app.application], logger: makeLogger(level: .error)))
        let serving = Task { try await group.run() }
        let port = await bound.wait()
        print("Started an in-process server on http://127.0.0.1:\(port) (temporary SQLite database)")
        do {
            try await DemoJourney(serverURL: URL(string: "http://127.0.0.1:\(port)")!, signature: applicationSignature,
                                  outbox: configuration.courier.path).run()
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        _ = await serving.result
        try await app.store.close()
    }
}

/// Hands the bound port from the server callback to the demo.
actor PortBox {
    private var port: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []
    func set(_ value: Int) {
        port = value
        waiters.forEach { $0.resume(returning: value) }
        waiters = []
    }
    func wait() async -> Int {
        if let port { return port }
        return await withCheckedContinuation { waiters.append($0) }
    }
}
