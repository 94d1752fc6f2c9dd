import Foundation
import Hummingbird
import LatchkeyCore
import Logging
import OpenAPIRuntime

/// Turns every error into the DESIGN §3 envelope (Kratos's envelope on the Kratos-compatible
/// routes): domain refusals, the framework's own errors
/// (unknown route 404, wrong method 405, body too large 413), malformed JSON and wrong types
/// (400 naming the field). Anything unexpected is logged and answered 500 without details.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let kratos = KratosErrorResponse.applies(to: request.uri.path)
            if let flow = (error as? FlowError) ?? ((error as? ServerError)?.underlyingError as? FlowError) {
                return KratosErrorResponse.response(flow)
            }
            let domain = translate(error, request: request, logger: context.logger)
            var headers: HTTPFields = [:]
            if domain.code == .methodNotAllowed {
                headers[.allow] = routes.methods(for: request.uri.path).map(\.rawValue).joined(separator: ", ")
            }
            return kratos ? KratosErrorResponse.response(domain, headers: headers) : domain.response(headers: headers)
        }
    }

    private func translate(_ error: any Error, request: Request, logger: Logger) -> DomainError {
        switch error {
        case let domain as DomainError:
            return domain
        case let server as ServerError:
            if server.underlyingError is DomainError || server.underlyingError is DecodingError {
                return translate(server.underlyingError, request: request, logger: logger)
            }
            if let nested = (server.underlyingError as? any CustomStringConvertible).flatMap({ Self.decodingError(in: $0) }) {
                return nested
            }
            if (400..<500).contains(server.httpStatus.code) {
                return DomainError(code: .invalidParameter, id: "invalid_request", message: Self.clean(server.causeDescription))
            }
            return translate(server.underlyingError, request: request, logger: logger)
        case let decoding as DecodingError:
            return Self.describe(decoding)
        case let http as HTTPError:
            switch http.status {
            case .notFound:
                if !routes.methods(for: request.uri.path).isEmpty {
                    return DomainError(code: .methodNotAllowed, id: "method_not_allowed",
                                       message: "\(request.method.rawValue) is not allowed on \(request.uri.path).")
                }
                return DomainError(code: .notFound, id: "not_found", message: "There is no route \(request.uri.path).")
            case .contentTooLarge:
                return DomainError(code: .payloadTooLarge, id: "payload_too_large", message: "The request body is too large.")
            default:
                return DomainError(code: StatusCode(rawValue: http.status.code), id: "http_error",
                                   message: http.body ?? http.status.reasonPhrase)
            }
        default:
            logger.error("Unexpected error: \(String(reflecting: type(of: error)))")
            return DomainError(code: .serverError, id: "server_error", message: "An unknown error occurred internally in the server.")
        }
    }

    /// A 400 naming the field a JSON decoding error concerns.
    static func describe(_ error: DecodingError) -> DomainError {
        let path = error.keyPath
        let field = path.isEmpty ? "body" : path
        if path.isEmpty, case .dataCorrupted = error {
            return DomainError(code: .invalidParameter, id: "malformed_json", message: "The request body is not valid JSON.")
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

    private static func decodingError(in error: any CustomStringConvertible) -> DomainError? {
        let mirror = Mirror(reflecting: error)
        for child in mirror.children {
            if let decoding = child.value as? DecodingError { return describe(decoding) }
        }
        return nil
    }

    private static func clean(_ description: String) -> String {
        String(description.prefix(200))
    }
}
