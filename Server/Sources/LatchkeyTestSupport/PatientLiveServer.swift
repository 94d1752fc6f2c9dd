import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Runs an application on a real socket and hands the test a client of it, as HummingbirdTesting's
/// `.live` setup does, but with a read timeout sized for the whole suite: `.live` gives up on a
/// response after a fixed 20 s, and with every suite running at once on two cores a single
/// request of a live test can wait longer than that for the CPU without anything being wrong.
/// A test that is really stuck still fails, after `timeout`.
public enum PatientLiveServer {
    /// How long a response may keep the client waiting.
    public static let timeout: Duration = .seconds(120)

    /// Starts `application` on a free port of localhost, runs `test` with a client of it, and
    /// shuts the server down gracefully whether `test` returns or throws.
    ///
    /// - Throws: what `test` throws, or what starting the server throws.
    public static func run<App: ApplicationProtocol, Value: Sendable>(
        _ application: App, _ test: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let served = PortReporting(base: application)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let services = ServiceGroup(configuration: .init(services: [served], gracefulShutdownSignals: [],
                                                              logger: application.logger))
            group.addTask { try await services.run() }
            let port = await served.port.wait()
            let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: timeout))
            client.connect()
            let result: Result<Value, any Error>
            do { result = .success(try await test(Client(client: client, port: port))) } catch { result = .failure(error) }
            try? await client.shutdown()
            await services.triggerGracefulShutdown()
            return try result.get()
        }
    }

    /// The test's client: HummingbirdTesting's `TestClient` behind its `TestClientProtocol`.
    struct Client: TestClientProtocol {
        let client: TestClient
        let port: Int?

        func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields,
                            body: ByteBuffer?) async throws -> TestResponse {
            var headers = headers
            headers[.connection] = "keep-alive"
            let request = TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body)
            let response = try await client.execute(request)
            return TestResponseLayout(head: response.head, body: response.body ?? ByteBuffer(),
                                      trailerHeaders: response.trailerHeaders).response
        }
    }
}

/// `TestResponse`'s stored properties in their order: HummingbirdTesting makes its memberwise
/// initialiser internal, and a client outside the module has no other way to produce one. The
/// sizes are checked before the bytes are reinterpreted.
private struct TestResponseLayout {
    let head: HTTPResponse
    let body: ByteBuffer
    let trailerHeaders: HTTPFields?

    var response: TestResponse {
        precondition(MemoryLayout<TestResponseLayout>.size == MemoryLayout<TestResponse>.size)
        return unsafeBitCast(self, to: TestResponse.self)
    }
}

/// The application under test, on port 0 of localhost, reporting the port it was given.
private struct PortReporting<Base: ApplicationProtocol>: ApplicationProtocol, Service {
    typealias Responder = Base.Responder
    let base: Base
    let port = PortPromise()

    var responder: Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration.with(address: .hostname("localhost", port: 0)) }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        port.complete(channel.localAddress?.port ?? 0)
    }
}

/// A port number some tasks wait for and one task sets once.
private final class PortPromise: Sendable {
    private let state = NIOLockedValueBox<(port: Int?, waiting: [CheckedContinuation<Int, Never>])>((nil, []))

    func wait() async -> Int {
        await withCheckedContinuation { continuation in
            state.withLockedValue { state in
                if let port = state.port { continuation.resume(returning: port) } else { state.waiting.append(continuation) }
            }
        }
    }

    func complete(_ port: Int) {
        let waiting = state.withLockedValue { state in
            state.port = port
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: port) }
    }
}
