import HTTPTypes
import Hummingbird
import LatchkeyDomain
import Synchronization
import Tracing

/// The span of a request (docs/operations.md, "Tracing"), the first middleware of a router when
/// `telemetry.tracing.enabled`: a server span whose parent is the W3C `traceparent` the load
/// balancer sent (read by the process's propagator), named by the operation the request reached —
/// the contract's operation id, set by the API's edge and the admin API's (`RequestSpan.name`),
/// else the route's template (`/reset/{token}` names no token) — and ended when the handler answers.
///
/// Hummingbird's own `TracingMiddleware` is not used: it records the query string (a link's
/// token), the client's address and the description of a thrown error, which may quote what the
/// client sent. This one records the method, the route's template, the status and `error.type`.
///
/// Whose `traceparent` counts: with `http.trustedProxies` set, only a trusted proxy's. A client's
/// own is ignored there, and its request starts a trace of its own at the configured sampling,
/// so a client can neither have its requests recorded whatever the sampling says nor keep them
/// out of the traces. Without trusted proxies the server is reached directly, and anyone's counts
/// (an app's own tracing may join it). The propagator reads only the two trace headers, checked
/// first (`TraceHeaders`): it logs what it cannot read, and the request's headers hold credentials.
package struct RequestTracingMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    /// The peers whose `traceparent` counts; nil: every peer's.
    let parentsFrom: TrustedProxies?

    /// - Parameter proxies: `http.trustedProxies`; when they are none, every peer's `traceparent` counts.
    package init(proxies: TrustedProxies, configured: [String]) {
        parentsFrom = configured.isEmpty ? nil : proxies
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Telemetry.isActive else { return try await next(request, context) }
        var parent = ServiceContext.current ?? .topLevel
        if parentsFrom.map({ proxies in context.remoteAddress?.ipAddress.map(proxies.trusts) ?? false }) ?? true,
           let headers = TraceHeaders(request.headers) {
            InstrumentationSystem.instrument.extract(headers, into: &parent, using: TraceHeadersExtractor())
        }
        guard let span = Telemetry.start("\(request.method.rawValue)", kind: .server, parent: parent) else {
            return try await next(request, context)
        }
        span.attributes["http.request.method"] = request.method.rawValue
        let named = RequestSpan()
        defer { span.end() }
        do {
            let response = try await ServiceContext.$current.withValue(span.context) {
                try await RequestSpan.$current.withValue(named) { try await next(request, context) }
            }
            finish(span, named: named, context: context, status: response.status.code)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            finish(span, named: named, context: context, status: status)
            span.attributes["error.type"] = "\(type(of: error))"
            throw error
        }
    }

    private func finish(_ span: any Span, named: RequestSpan, context: Context, status: Int) {
        if let route = context.endpointPath { span.attributes["http.route"] = route }
        span.operationName = named.operation ?? context.endpointPath ?? "\(span.operationName) (no route)"
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }
}

/// The name the edges give the request's span: the operation they serve.
package final class RequestSpan: Sendable {
    @TaskLocal package static var current: RequestSpan?
    private let named = Mutex<String?>(nil)

    /// The operation id an edge named, if one did.
    package var operation: String? { named.withLock { $0 } }

    /// Names the current request's span by `operation` (the contract's `operationId`).
    package static func name(_ operation: String) {
        current?.named.withLock { $0 = operation }
    }
}
