import Foundation

/// What the server reports about its own work besides the logs and `/metrics`.
public struct TelemetrySettings: Codable, Sendable, Equatable {
    public var tracing = TracingSettings()
    public init() {}
}

/// OpenTelemetry traces, exported over OTLP/HTTP (docs/operations.md, "Tracing"). Off by
/// default; a build needs the `OTLPExport` package trait to turn them on.
public struct TracingSettings: Codable, Sendable, Equatable {
    public var enabled = false
    /// Where spans are sent: the collector's OTLP/HTTP traces URL, used as given.
    public var endpoint = "http://localhost:4318/v1/traces"
    /// The share of new traces recorded (0 to 1). A request that arrives with a W3C
    /// `traceparent` follows its caller's decision instead (parent-based sampling).
    public var samplingRatio = 1.0
    /// The `service.name` of the exported spans.
    public var serviceName = "latchkey"
    public init() {}

    /// Checks values that decode but cannot work, naming the key under `key` (`telemetry.tracing`).
    /// - Throws: `ConfigurationError` naming the setting at fault.
    public func validate(key: String) throws {
        guard (0...1).contains(samplingRatio) else {
            throw ConfigurationError(key: key + ".samplingRatio", message: "Must be between 0 and 1.")
        }
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false else {
            throw ConfigurationError(key: key + ".endpoint", message: "Must be the collector's http(s) OTLP traces URL.")
        }
        guard !serviceName.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError(key: key + ".serviceName", message: "Must not be empty.")
        }
    }
}
