import LatchkeyDomain
import Logging
import ServiceLifecycle
import Tracing

#if OTLPExport
import OTel
#endif

/// The process's tracer for `telemetry.tracing` (docs/operations.md, "Tracing"): OpenTelemetry's
/// (swift-otel) with W3C trace-context propagation, parent-based sampling at the configured
/// ratio for new traces, and a batch exporter over OTLP/HTTP. The exporter is compiled in only
/// with the package trait `OTLPExport`; a build without it refuses `telemetry.tracing.enabled`.
public enum TracingSetup {
    /// Whether this build has the OTLP exporter.
    public static var exporterCompiledIn: Bool {
        #if OTLPExport
        true
        #else
        false
        #endif
    }

    /// Checks that this build can serve `settings`.
    /// - Throws: `ConfigurationError` naming `telemetry.tracing.enabled` when tracing is on and the
    ///   exporter is not compiled in.
    public static func check(_ settings: TracingSettings) throws {
        guard settings.enabled, !exporterCompiledIn else { return }
        throw ConfigurationError(key: "telemetry.tracing.enabled",
                                 message: "This build has no trace exporter; build it with the package trait OTLPExport "
                                     + "(swift build --traits OTLPExport), or turn tracing off.")
    }

    /// Sets the process's tracer (once per process) and answers the exporter's service, which
    /// must run beside the server and flushes the last spans when it stops, and the logging
    /// metadata provider that puts `trace_id` and `span_id` on each log line written inside a
    /// span. Nil when tracing is off. The `OTEL_*` environment variables of OpenTelemetry's
    /// specification override the settings.
    /// - Throws: `ConfigurationError` as `check(_:)`; swift-otel's configuration errors.
    public static func bootstrap(_ settings: TracingSettings, logger: Logger) throws
        -> (service: any Service, metadata: Logger.MetadataProvider)? {
        try check(settings)
        guard settings.enabled else { return nil }
        #if OTLPExport
        var configuration = OTel.Configuration.default
        configuration.serviceName = settings.serviceName
        configuration.diagnosticLogger = .custom(ExporterLogHandler.logger(over: logger))  // values of OTEL_* redacted
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.traces.otlpExporter.endpoint = settings.endpoint
        configuration.traces.sampler = .parentBasedTraceIDRatio(ratio: settings.samplingRatio) ?? .parentBasedAlwaysOn
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        Telemetry.activate()
        return (backend.service, OTel.makeLoggingMetadataProvider())
        #else
        return nil
        #endif
    }
}
