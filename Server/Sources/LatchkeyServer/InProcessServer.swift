import Foundation
import LatchkeyDomain
import LatchkeyHTTP
import LatchkeySQL
import Logging
import ServiceLifecycle

/// A server running inside the current process on a temporary directory (SQLite file, pepper,
/// file courier), listening on a free port — for `latchkey demo` and the benchmark.
public final class InProcessServer: Sendable {
    public let application: LatchkeyApplication
    /// Where it listens.
    public let url: URL
    /// The temporary directory holding its files; removed by `stop()`.
    public let directory: URL
    private let group: ServiceGroup
    private let serving: Task<Void, Error>

    private init(application: LatchkeyApplication, url: URL, directory: URL, group: ServiceGroup, serving: Task<Void, Error>) {
        self.application = application
        self.url = url
        self.directory = directory
        self.group = group
        self.serving = serving
    }

    /// Builds the server as `latchkey serve` does and waits until it listens. `configure` may
    /// change the temporary configuration (port 0, SQLite and courier file in the directory); `channel`
    /// replaces the courier's delivery.
    public static func start(logger: Logger, channel: (any MessageChannel)? = nil,
                             configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> InProcessServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database = "sqlite:" + directory.appendingPathComponent("latchkey.sqlite").path
        configuration.secrets.pepperFile = directory.appendingPathComponent("pepper").path
        configuration.secrets.caKeyFile = directory.appendingPathComponent("ca-key.pem").path
        configuration.secrets.caCertificateFile = directory.appendingPathComponent("ca-cert.pem").path
        configuration.secrets.sealKeyFile = directory.appendingPathComponent("seal-key.pem").path
        configuration.courier.channel = .file
        configuration.courier.path = directory.appendingPathComponent("outbox.jsonl").path
        configure(&configuration)
        // Its own secrets, as `latchkey secrets generate` writes them (a PostgreSQL database needs them provided).
        try SecretFiles.generate(settings: configuration.secrets, issuerName: configuration.issuer.name)
        let port = AsyncStream<Int>.makeStream()
        let application = try await buildApplication(configuration, options: BuildOptions(
            logger: logger, channel: channel, onServerRunning: { port.continuation.yield($0) }))
        let group = ServiceGroup(configuration: .init(services: [application.application], logger: logger))
        // A server that stops before it listens (its secrets disagree with the database's) ends
        // the wait with its error instead of leaving the caller waiting for a port.
        let serving = Task {
            defer { port.continuation.finish() }
            try await group.run()
        }
        var ports = port.stream.makeAsyncIterator()
        guard let bound = await ports.next() else {
            if case .failure(let error) = await serving.result { throw error }
            throw CancellationError()
        }
        return InProcessServer(application: application, url: URL(string: "http://\(configuration.host):\(bound)")!,
                               directory: directory, group: group, serving: serving)
    }

    /// Shuts the server down gracefully, closes its database and removes its directory.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        _ = await serving.result
        try await application.store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
