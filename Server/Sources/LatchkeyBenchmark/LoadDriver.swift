import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Issues requests from N concurrent workers for a fixed time and records latencies.
struct LoadDriver {
    static let deviceID = "benchmark"

    struct Request: Sendable {
        var path: String
        var method: HTTPMethod = .GET
        var session: String? = nil
        var body: String? = nil
        var headers: [(String, String)] = []
    }

    struct Result {
        var name: String
        var count: Int
        var errors: Int
        var seconds: Double
        var latencies: [Double]
        /// Answers 503 `overloaded` (the hash gate), not counted in `count`.
        var refused = 0
        /// Operations that succeeded per second.
        var rate: Double { Double(count) / seconds }

        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1000
        }

        func print(baseline: Result?) {
            var line = String(format: "%-45@ %9.1f req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d",
                              name as NSString, rate, percentile(0.5), percentile(0.99), errors)
            if refused > 0 { line += "  refused \(refused) (503)" }
            if let baseline { line += String(format: "  (%.0f%% of /health)", rate / baseline.rate * 100) }
            Swift.print(line)
        }
    }

    let base: URL
    let connections: Int
    let client: HTTPClient

    init(base: URL, connections: Int) {
        self.base = base
        self.connections = connections
        var configuration = HTTPClient.Configuration()
        // A redirect is an answer to measure, not to follow: the console sends a request whose
        // session is gone to its sign-in page, which must count as an error, not as the page.
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func measure(_ name: String, seconds: Double, request: @escaping @Sendable (Int) -> Request) async throws -> Result {
        try await measureOperation(name, seconds: seconds) { index in
            let response = try await client.execute(makeRequest(request(index)), timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            if response.status.code == 503 { throw Refused() }
            // Every operation measured answers 2xx; a redirect (the console's sign-in page) or a
            // refusal is an error.
            if response.status.code >= 300 { throw BenchmarkError("HTTP \(response.status.code)") }
        }
    }

    /// Runs `operation` (one request or several) from every connection until the time is up; an
    /// operation that throws counts as an error.
    func measureOperation(_ name: String, seconds: Double, operation: @escaping @Sendable (Int) async throws -> Void)
        async throws -> Result {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let counter = Counter()
        let start = ContinuousClock.now
        // Latencies and rates are of the operations that succeeded; a refusal (503, the hash gate)
        // is counted apart and the connection waits a second before its next try, as an app would.
        let outcomes = try await withThrowingTaskGroup(of: ([Double], Int, Int).self) { group in
            for _ in 0..<connections {
                group.addTask {
                    var latencies: [Double] = []
                    var (errors, refused) = (0, 0)
                    while ContinuousClock.now < deadline {
                        let sent = ContinuousClock.now
                        do {
                            try await operation(counter.next())
                            let elapsed = ContinuousClock.now - sent
                            latencies.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                        } catch is Refused {
                            refused += 1
                            try await Task.sleep(for: .seconds(1))
                        } catch {
                            if errors == 0 { FileHandle.standardError.write(Data("\(name): \(error)\n".utf8)) }
                            errors += 1
                        }
                    }
                    return (latencies, errors, refused)
                }
            }
            return try await group.reduce(into: [([Double], Int, Int)]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - start
        let all = outcomes.flatMap(\.0).sorted()
        return Result(name: name, count: all.count, errors: outcomes.map(\.1).reduce(0, +),
                      seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                      latencies: all, refused: outcomes.map(\.2).reduce(0, +))
    }

    func makeRequest(_ spec: Request) -> HTTPClientRequest {
        var http = HTTPClientRequest(url: base.absoluteString + spec.path)
        for (name, value) in spec.headers { http.headers.add(name: name, value: value) }
        http.method = spec.method
        http.headers.add(name: "X-Application-Signature", value: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")
        if !spec.headers.contains(where: { $0.0 == "X-Device-ID" }) { http.headers.add(name: "X-Device-ID", value: Self.deviceID) }
        if let session = spec.session { http.headers.add(name: "Authorization", value: "Bearer \(session)") }
        if let body = spec.body {
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(ByteBuffer(string: body))
        }
        return http
    }

    /// Sends one request and answers its status.
    @discardableResult
    func send(_ spec: Request) async throws -> UInt {
        let response = try await client.execute(makeRequest(spec), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    /// Sends one request and answers its JSON body.
    func json(_ spec: Request) async throws -> [String: Any] {
        let response = try await client.execute(makeRequest(spec), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    func shutdown() async throws { try await client.shutdown() }
}

/// A 503 answer: the server refused the operation for now.
struct Refused: Error {}

/// A shared request counter, for unique registration emails.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
