import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI
import NIOCore

/// The two ways the server writes an error: the wallet API's envelope of DESIGN §3
/// (`{"error": {"code", "id", "message", "field"}}`) and, on the Kratos-compatible routes,
/// Ory Kratos's (`{"error": {"id", "code", "status", "reason", "message"}}`, `code` the HTTP status).
/// Both take the status, id and code from the catalogue (`ErrorKind`); nothing else decides them.
/// The bodies are the contract's own types (`ErrorResponse`, `KratosError`), so what the server
/// writes is what the document and the SDK's generated client read.
public enum ErrorDialect: Sendable {
    case wallet
    case kratos

    /// The dialect for a request no route group took (an unknown route, a wrong method, a body
    /// over the limit): the family of paths it was sent to. Routed requests use their group's.
    package static func of(path: String) -> ErrorDialect {
        APIRouteGroups.isKratos(path) ? .kratos : .wallet
    }

    /// The error as an HTTP response, with `Retry-After` when the error carries one. With `texts`
    /// (the wallet's and the Kratos-compatible API's, not the operators') the message is said in
    /// their language and `Content-Language` names it; the id, code, status and field never change.
    package func response(_ error: DomainError, headers: HTTPFields = [:], texts: LocalizedTexts? = nil) -> Response {
        let status = HTTPResponse.Status(code: error.kind.httpStatus)
        let said = texts?.said(error.text)
        let message = said?.text ?? error.message
        let body: Data
        switch self {
        case .wallet:
            body = Self.encode(Components.Schemas.ErrorResponse(error: .init(code: error.code.rawValue, id: error.id.rawValue,
                                                                             message: message, field: error.field)))
        case .kratos:
            var reason = message
            if let field = error.field, !reason.hasPrefix(field) { reason = "\(field): \(reason)" }
            body = Self.encode(Components.Schemas.KratosError(error: .init(id: error.id.rawValue, code: status.code,
                                                                           status: Self.reasonPhrase(status), reason: reason,
                                                                           message: Self.kratosMessage(status.code))))
        }
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        if let retry = error.retryAfter { fields[.retryAfter] = String(retry) }
        if let said { fields[.contentLanguage] = said.language }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(data: body)))
    }

    private static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Both envelopes are plain strings and numbers; encoding cannot fail.
        return (try? encoder.encode(value)) ?? Data()
    }

    private static func reasonPhrase(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 423: "Locked"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: status.reasonPhrase.isEmpty ? "Error" : status.reasonPhrase
        }
    }

    /// Kratos's generic sentence per status.
    private static func kratosMessage(_ status: Int) -> String {
        switch status {
        case 400: "The request was malformed or contained invalid parameters"
        case 401: "The request could not be authorized"
        case 403: "The requested action was forbidden"
        case 404: "The requested resource could not be found"
        case 405: "The request method is not allowed"
        case 410: "The requested resource is no longer available"
        case 413: "The request body is too large"
        case 429: "Too many requests"
        default: status >= 500 ? "An internal server error occurred, please contact the system administrator" : "The request failed"
        }
    }
}

/// Hummingbird renders a `DomainError` thrown past the error middleware (it never is in the
/// server's own router) in the wallet dialect, from the same table.
extension DomainError: HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: kind.httpStatus) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        ErrorDialect.of(path: request.uri.path).response(self)
    }
}
