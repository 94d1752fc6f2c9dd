import Foundation
import Testing

/// `latchkey serve` and `latchkey operators` as an operator runs them: the built binary, a
/// configuration file, signals.
@Suite struct ServeProcessTests {
    /// An idle server (its admin listener too) ends at once on SIGTERM: only requests in flight
    /// get `shutdownGraceSeconds`, so a rolling deploy does not wait the grace on every replica.
    @Test func anIdleServerStopsAtOnceOnSIGTERM() async throws {
        let server = try LatchkeyProcess(settings: "shutdownGraceSeconds: 10\nadmin: { enabled: true, port: 0 }\n")
        _ = try await server.serve()
        // Past the start, every background task is in its wait.
        try await Task.sleep(for: .seconds(1))
        let sent = ContinuousClock.now
        server.terminate()
        let stopped = try await server.waitForExit(within: .seconds(15))
        let took = ContinuousClock.now - sent
        #expect(stopped && took < .seconds(3), "SIGTERM on an idle server: it took \(took)")
        #expect(!stopped || server.process?.terminationStatus == 0, "a graceful stop exits 0")
    }

    /// A request in flight when SIGTERM arrives (its body still coming) is answered, and the
    /// server ends right after it rather than at the end of the grace.
    @Test func aRequestInFlightIsAnsweredThenTheServerStops() async throws {
        let server = try LatchkeyProcess(settings: "shutdownGraceSeconds: 10\n")
        let port = try await server.serve()
        let body = "token=" + String(repeating: "a", count: 43)
        let connection = try RawConnection(port: port)
        try connection.send("POST /verify-email HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body.prefix(10))
        // The head has arrived and the body is awaited (a second leaves room on a loaded machine).
        try await Task.sleep(for: .seconds(1))
        server.terminate()
        try await Task.sleep(for: .seconds(1))
        #expect(server.process?.isRunning == true, "the request in flight holds the shutdown")
        try connection.send(String(body.dropFirst(10)))
        let answer = await connection.readToEnd()
        let answered = ContinuousClock.now
        #expect(answer.hasPrefix("HTTP/1.1 "), "the request in flight is answered: \(answer.prefix(200))")
        let stopped = try await server.waitForExit(within: .seconds(15))
        let took = ContinuousClock.now - answered
        #expect(stopped && took < .seconds(3), "the server ends after its last request: it took \(took)")
    }

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
