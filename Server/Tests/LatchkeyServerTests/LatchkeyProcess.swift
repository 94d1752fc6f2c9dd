import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The `latchkey` command built beside the tests (`swift build --build-tests` builds it), run as
/// an operator runs it, in a temporary directory of its own (SQLite file, secrets, configuration).
final class LatchkeyProcess: @unchecked Sendable {
    let directory: URL
    /// The command once started (each instance runs one).
    private(set) var process: SpawnedProcess?

    /// A temporary directory holding `latchkey.yaml`: fast hashing, secrets and database in the
    /// directory, then `settings` (more top-level keys).
    init(settings: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let yaml = """
            database: "sqlite:\(directory.path)/latchkey.sqlite"
            hashing: { logN: 10, p: 1 }
            secrets: { pepperFile: "\(directory.path)/pepper", caKeyFile: "\(directory.path)/ca-key.pem",
                       caCertificateFile: "\(directory.path)/ca-cert.pem", sealKeyFile: "\(directory.path)/seal-key.pem" }

            """ + settings
        try yaml.write(to: directory.appendingPathComponent("latchkey.yaml"), atomically: true, encoding: .utf8)
    }

    deinit {
        if let process, process.isRunning { process.signal() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts `latchkey <arguments>` in the directory.
    private func start(_ arguments: [String]) throws -> SpawnedProcess {
        let started = try SpawnedProcess(try Self.binary().path, arguments, directory: directory.path,
                                         environment: ProcessInfo.processInfo.environment.merging(["LOG_LEVEL": "error"]) { $1 })
        process = started
        return started
    }

    /// The built `latchkey` next to the test runner, or in the package's `.build/debug`.
    static func binary() throws -> URL {
        let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("latchkey"),
                          server.appendingPathComponent(".build/debug/latchkey")].compactMap { $0 }
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
                            "the latchkey binary is built (swift build --build-tests): \(candidates.map(\.path))")
    }

    /// Runs `latchkey <arguments> --config latchkey.yaml` to its end: its exit status, standard
    /// output and standard error.
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await execute(arguments + ["--config", directory.appendingPathComponent("latchkey.yaml").path])
    }

    /// Runs `latchkey config check latchkey.yaml` to its end.
    func checkConfiguration() async throws -> (status: Int32, output: String, errors: String) {
        try await execute(["config", "check", directory.appendingPathComponent("latchkey.yaml").path])
    }

    private func execute(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let process = try start(arguments)
        // Read and wait off the concurrency pool, whose few threads serve the suites beside.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: process.finish()) }
        }
    }

    /// Starts `latchkey serve` on a free port and waits (30 s at most) for its "listening" line;
    /// answers the port.
    func serve() async throws -> Int {
        let port = try Self.freePort()
        let process = try start(["serve", "--port", String(port), "--config", directory.appendingPathComponent("latchkey.yaml").path])
        let listening = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var seen = ""
                while !seen.contains("Latchkey listening") {
                    let data = process.output.availableData
                    if data.isEmpty { break }   // the server ended
                    seen += String(decoding: data, as: UTF8.self)
                }
                continuation.resume(returning: seen.contains("Latchkey listening"))
            }
        }
        try #require(listening, "latchkey serve listens: \(String(decoding: process.errors.availableData, as: UTF8.self))")
        return port
    }

    /// Sends SIGTERM, as an orchestrator stopping a replica does.
    func terminate() {
        process?.signal(SIGTERM)
    }

    /// Waits for the process to end, `limit` at most; answers whether it did.
    func waitForExit(within limit: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        let process = try #require(process, "the command was started")
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return !process.isRunning
    }

    /// A port nobody listens on: bound to 0, read, released.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound, "a free port")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A client's TCP connection, written and read byte by byte, to hold a request in flight.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        try #require(connected, "connected to 127.0.0.1:\(port)")
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(sent == bytes.count, "sent \(sent) of \(bytes.count) bytes")
    }

    /// Everything the server sends until it closes the connection (20 s at most).
    func readToEnd() async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    received += buffer[0..<count]
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }
}
