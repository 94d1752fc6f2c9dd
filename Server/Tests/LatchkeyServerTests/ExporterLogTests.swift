import Logging
import Synchronization
import Testing

@testable import LatchkeyServer

/// The trace exporter's own log (`ExporterLogHandler`): what swift-otel takes from the
/// environment, the configuration or a request is written as `[redacted]`, the rest as it is.
@Suite struct ExporterLogTests {
    /// Keeps every event it is handed.
    final class Recorder: LogHandler, @unchecked Sendable {
        let events = Mutex<[LogEvent]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { events.withLock { $0.append(event) } }
    }

    @Test func whatTheExporterTakesFromOutsideIsRedacted() throws {
        let recorder = Recorder()
        var logger = ExporterLogHandler.logger(over: Logger(label: "latchkey") { _ in recorder })
        logger[metadataKey: "carrier"] = "Authorization: Bearer from-the-logger"
        logger.warning("Failed to extract span context.",
                       metadata: ["carrier": "[Authorization: Bearer secret-token, Cookie: latchkey_console=secret]",
                                  "component": "OTelTracer"])
        logger.info("Configuration updated from environment",
                    metadata: ["environment_key": "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "environment_value": "x-key=secret",
                               "previous_value": "[:]", "new_value": "x-key=secret"])
        let events = recorder.events.withLock { $0 }
        #expect(events.count == 2)
        let extract = try #require(events.first?.metadata)
        #expect(extract["carrier"] == "[redacted]" && extract["component"] == "OTelTracer")
        let override = try #require(events.last?.metadata)
        #expect(override["environment_key"] == "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
        #expect(["environment_value", "previous_value", "new_value"].allSatisfy { override[$0] == "[redacted]" })
        #expect(recorder.metadata["carrier"] == "[redacted]", "set on the logger itself")
        let written = events.map { "\($0.message) \($0.metadata ?? [:])" }.joined() + "\(recorder.metadata)"
        #expect(!written.contains("secret"))
    }
}
