import HTTPTypes
import Hummingbird
import Logging

/// Gives each request an id (`X-Request-ID`, kept from the client when sane), logs one line per
/// request with method, path (never the query string), status and duration, and no secrets.
package struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}
    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The id goes with each line logged (here and by `ErrorMiddleware`), not into the logger's
        // metadata: setting that re-renders the handler's metadata on every request, logged or not.
        let id = request.requestID(context)
        let start = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestID] = id
        let elapsed = ContinuousClock.now - start
        context.logger.info("\(request.method) \(request.uri.path) \(response.status.code)",
                            metadata: ["request_id": "\(id)",
                                       "duration_ms": "\(elapsed.components.attoseconds / 1_000_000_000_000_000 + elapsed.components.seconds * 1000)"])
        return response
    }
}

extension Request {
    /// The request's id: the client's `X-Request-ID` when sane, else the context's.
    package func requestID(_ context: some RequestContext) -> String { Self.requestID(sent: headers[.requestID], context) }

    /// The request's id from the `X-Request-ID` it `sent` (when sane), else the context's.
    package static func requestID(sent: String?, _ context: some RequestContext) -> String {
        sent.flatMap { $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } ? $0 : nil } ?? context.id
    }
}
