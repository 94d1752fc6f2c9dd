import HTTPTypes
import Hummingbird
import NIOCore

/// Refuses bodies over the limit with 413 before anything reads them, and JSON text that escapes
/// a NUL character with 400 naming the field (`NulCharacterGuard`).
package struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    package let maxBytes: Int
    /// Paths whose handler reads the body as it arrives, with a limit of its own (the admin API's import).
    package let streamedPaths: Set<String>
    package init(maxBytes: Int, streamedPaths: Set<String> = []) {
        self.maxBytes = maxBytes
        self.streamedPaths = streamedPaths
    }
    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if !streamedPaths.isEmpty, request.method == .post, streamedPaths.contains(request.uri.path) { return try await next(request, context) }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBytes {
            throw HTTPError(.contentTooLarge)
        }
        var request = request
        if request.method != .get, request.method != .head {
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: maxBytes)
            } catch is NIOTooManyBytesError {
                // A chunked body has no Content-Length to refuse early: reading past the limit is 413 too.
                throw HTTPError(.contentTooLarge)
            }
            if request.headers[.contentType]?.lowercased().contains("json") == true { try NulCharacterGuard.check(body) }
        }
        return try await next(request, context)
    }
}
