import AsyncHTTPClient
import NIOHTTP1
import Synchronization
import Tracing

/// The server's spans (docs/operations.md, "Tracing"): a span per request, made at the edge, and
/// child spans for the work inside it — the hash gate's wait and the hash, each database
/// transaction and standalone statement, opening sealed credentials, the OpenID Connect calls and
/// the courier's deliveries. Spans go to the process's tracer (`InstrumentationSystem`), which
/// `activate()` declares set; until then no span is even started, so a server without tracing
/// pays one atomic load per would-be span.
///
/// What a span may carry: names of operations, routes, kinds and outcomes, status codes and the
/// type of an error. Never a value a client or provider sent (no query string, header, body, URL,
/// address of a recipient, nor an error's description, which may quote them).
public enum Telemetry {
    private static let active = Atomic(false)

    /// Declares the process's tracer set (`InstrumentationSystem.bootstrap`): spans are made from now on.
    public static func activate() { active.store(true, ordering: .releasing) }

    /// Whether spans are made.
    public static var isActive: Bool { active.load(ordering: .acquiring) }

    /// A span named `name`, child of the current context's span (or of `parent`), started now;
    /// nil while tracing is not active. The caller ends it; ending it twice does nothing.
    public static func start(_ name: String, kind: SpanKind = .internal, parent: ServiceContext? = nil) -> (any Span)? {
        guard isActive else { return nil }
        return InstrumentationSystem.tracer.startSpan(name, context: parent ?? ServiceContext.current ?? .topLevel, ofKind: kind)
    }

    /// Runs `body` in a span named `name` (the current context's child), ended when `body`
    /// returns or throws. A thrown error marks the span failed with only the error's type
    /// (`error.type`): its description may quote what a client or provider sent.
    /// - Throws: what `body` throws.
    public static func span<T>(_ name: String, kind: SpanKind = .internal, isolation: isolated (any Actor)? = #isolation,
                               _ body: ((any Span)?) async throws -> T) async throws -> T {
        guard let span = start(name, kind: kind) else { return try await body(nil) }
        defer { span.end() }
        do {
            return try await ServiceContext.$current.withValue(span.context, operation: { try await body(span) }, isolation: isolation)
        } catch {
            failed(span, error)
            throw error
        }
    }

    /// Marks `span` failed by `error`'s type alone.
    public static func failed(_ span: (any Span)?, _ error: any Error) {
        guard let span else { return }
        span.attributes["error.type"] = "\(type(of: error))"
        span.setStatus(SpanStatus(code: .error))
    }

    /// Writes the current span's context into an outgoing request's headers (W3C `traceparent`
    /// with the OpenTelemetry tracer), so the provider's own traces join the server's.
    public static func inject(into request: inout HTTPClientRequest) {
        guard isActive, let context = ServiceContext.current else { return }
        InstrumentationSystem.instrument.inject(context, into: &request.headers, using: HeadersInjector())
    }

    private struct HeadersInjector: Injector {
        func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
            headers.replaceOrAdd(name: key, value: value)
        }
    }
}
