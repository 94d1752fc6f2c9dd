import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import Logging
import OpenAPIRuntime

/// Turns every error into a `DomainError` of the catalogue and renders it in a dialect: domain
/// refusals, the framework's own errors (unknown route 404, wrong method 405, body too large 413),
/// malformed JSON and wrong types (400 naming the field). Anything unexpected is logged and
/// answered 500 without details. Each API route group has its own, speaking the group's dialect
/// (`APIRequestContext.dialect`); the router's own answers requests no group took (unknown routes,
/// wrong methods, oversized bodies) in the dialect of the family of paths they were sent to.
/// With a catalog (the public API's, never the operators') the message is said in the language of
/// the request's `Accept-Language`.
package struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package let routes: RouteTable
    /// The group's dialect; nil at the router.
    package let dialect: ErrorDialect?
    /// The texts of the customer's languages; nil: English.
    package let catalog: TextCatalog?

    package init(routes: RouteTable, dialect: ErrorDialect? = nil, catalog: TextCatalog? = nil) {
        self.routes = routes
        self.dialect = dialect
        self.catalog = catalog
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await render(request, context: context, next: next)
        // Answers carry sessions, profiles and codes: no cache keeps them (pages set their own).
        if !response.headers.contains(.cacheControl) { response.headers[.cacheControl] = "no-store" }
        return response
    }

    private func render(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            var logger = context.logger
            logger[metadataKey: "request_id"] = "\(request.requestID(context))"
            let domain = translate(error, request: request, logger: logger)
            var headers: HTTPFields = [:]
            if domain.kind == .methodNotAllowed {
                headers[.allow] = routes.methods(for: request.uri.path).map(\.rawValue).joined(separator: ", ")
            }
            // A service's device-binding refusal (a key registration without a proof) challenges like the edge's.
            if domain.kind.isDeviceBinding { headers[.wwwAuthenticate] = domain.dpopChallenge }
            return (dialect ?? ErrorDialect.of(path: request.uri.path))
                .response(domain, headers: headers, texts: catalog?.texts(for: request))
        }
    }

    private func translate(_ error: any Error, request: Request, logger: Logger) -> DomainError {
        switch error {
        case let domain as DomainError:
            return domain
        case let server as ServerError:
            // OpenAPIRuntime wraps a handler's error, and the DecodingError of a request it could
            // not parse, as `underlyingError`.
            if server.underlyingError is DomainError || server.underlyingError is DecodingError
                || server.underlyingError is SQLEngineError {
                return translate(server.underlyingError, request: request, logger: logger)
            }
            if (400..<500).contains(server.httpStatus.code) {
                return DomainError(.invalidRequest, message: LocalizableText(verbatim: String(server.causeDescription.prefix(200))))
            }
            return translate(server.underlyingError, request: request, logger: logger)
        case let decoding as DecodingError:
            return Self.describe(decoding)
        case is CancellationError:
            // A hash skipped because the client left (`ClientPresence`): nobody reads this answer,
            // but one that half-closed and still listens may try again.
            logger.debug("Hash work skipped: the client has gone")
            return DomainError(.overloaded, retryAfter: 1)
        case SQLEngineError.unavailable:
            // The database did not answer in time: fail fast, and say when to try again.
            return DomainError(.notReady, retryAfter: 1)
        case let http as HTTPError:
            switch http.status {
            case .notFound:
                if !routes.methods(for: request.uri.path).isEmpty {
                    return DomainError(.methodNotAllowed, message: "\(request.method.rawValue) is not allowed on \(request.uri.path).")
                }
                return DomainError(.notFound, message: "There is no route \(request.uri.path).")
            case .contentTooLarge:
                return DomainError(.payloadTooLarge)
            case _ where (400..<500).contains(http.status.code):
                return DomainError(.invalidRequest, message: LocalizableText(verbatim: http.body ?? http.status.reasonPhrase))
            default:
                logger.error("Unexpected HTTP error \(http.status.code)")
                return DomainError(.serverError)
            }
        default:
            logger.error("Unexpected error: \(String(reflecting: type(of: error)))")
            return DomainError(.serverError)
        }
    }

    /// A 400 naming the field a JSON decoding error concerns.
    package static func describe(_ error: DecodingError) -> DomainError {
        let path = error.keyPath
        let field = path.isEmpty ? "body" : path
        if path.isEmpty, case .dataCorrupted = error {
            return DomainError(.malformedJSON)
        }
        switch error {
        case .keyNotFound:
            return .invalidField(field, "\(field) is required.")
        case .typeMismatch, .valueNotFound:
            return .invalidField(field, "\(field) has the wrong type.")
        default:
            return .invalidField(field, "\(field) has an invalid value.")
        }
    }
}
