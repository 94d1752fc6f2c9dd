import HTTPTypes
import Tracing

/// A request's W3C Trace Context headers (`traceparent`, `tracestate`), checked against the
/// W3C grammar before the process's propagator sees them.
///
/// The propagator is given this pair, never the request's headers: OpenTelemetry's propagator
/// logs the whole carrier at `warning` when it cannot read it, and a request's headers hold its
/// bearer token, DPoP proof and console cookie. A malformed `traceparent` is dropped here (the
/// request starts a trace of its own, as W3C Trace Context asks), so a client cannot fill the log
/// with warnings either; a malformed `tracestate` beside a good `traceparent` is dropped alone.
package struct TraceHeaders: Sendable, Equatable {
    /// The `traceparent` value, well formed.
    package let parent: String
    /// The `tracestate` value, well formed, if the request sent one.
    package let state: String?

    /// The trace headers of `headers`, nil when `traceparent` is missing or malformed.
    package init?(_ headers: HTTPFields) {
        guard let traceparent = HTTPField.Name("traceparent").flatMap({ headers[$0] }) else { return nil }
        let tracestate = HTTPField.Name("tracestate").flatMap { headers[values: $0] }.map { $0.joined(separator: ",") }
        self.init(traceparent: traceparent, tracestate: tracestate.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The pair, nil when `traceparent` is malformed; a malformed `tracestate` is dropped.
    package init?(traceparent: String, tracestate: String?) {
        guard TraceContextGrammar.isTraceparent(Array(traceparent.utf8)) else { return nil }
        parent = traceparent
        state = tracestate.flatMap { TraceContextGrammar.isTracestate($0) ? $0 : nil }
    }
}

/// Reads a `TraceHeaders` for the process's propagator: `traceparent` and `tracestate`, nothing else.
package struct TraceHeadersExtractor: Extractor {
    package init() {}

    package func extract(key: String, from carrier: TraceHeaders) -> String? {
        switch key.lowercased() {
        case "traceparent": carrier.parent
        case "tracestate": carrier.state
        default: nil
        }
    }
}
