import Logging

/// The log of the trace exporter itself (swift-otel's diagnostic logger). When an `OTEL_*`
/// environment variable overrides a setting, swift-otel logs at `info` the variable's value and
/// the setting's values before and after; for `OTEL_EXPORTER_OTLP_TRACES_HEADERS` those hold the
/// collector's API key, and an endpoint's URL may hold a password. This handler passes each line
/// on to the server's log with those three values replaced, so the log still says which variable
/// changed which setting, never what it was set to. swift-otel's tracer also logs, as `carrier`,
/// whatever it failed to read a trace context from; the request's middleware gives it only the
/// two trace headers, checked first, and the value is redacted here as well in case another
/// caller ever hands it a request's headers.
struct ExporterLogHandler: LogHandler {
    /// The metadata keys whose values swift-otel takes from the environment, the configuration
    /// or a request.
    static let redactedKeys: Set<String> = ["environment_value", "previous_value", "new_value", "carrier"]

    private var base: any LogHandler

    /// `logger`'s handler (its level, metadata and metadata provider) behind the redaction.
    static func logger(over logger: Logger) -> Logger {
        Logger(label: logger.label) { _ in ExporterLogHandler(base: logger.handler) }
    }

    static func redacted(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.reduce(into: [:]) { result, pair in result[pair.key] = redactedKeys.contains(pair.key) ? "[redacted]" : pair.value }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = Self.redacted(newValue) }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = Self.redactedKeys.contains(key) && newValue != nil ? "[redacted]" : newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.metadata = event.metadata.map(Self.redacted)
        base.log(event: event)
    }
}
