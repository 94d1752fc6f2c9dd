import Foundation
import Hummingbird
import LatchkeyCore
import NIOCore

/// The error envelope of the Kratos-compatible routes (`/a/…`, `/identity/…`):
/// `{"error": {"id", "code", "status", "reason", "message"}}` with `code` the HTTP status.
enum KratosErrorResponse {
    /// Whether a path belongs to the Kratos-compatible routes.
    static func applies(to path: String) -> Bool { path.hasPrefix("/a/") || path.hasPrefix("/identity/") }

    static func response(_ error: FlowError) -> Response {
        let status = HTTPResponse.Status(code: error.status)
        let body: [String: Any] = ["error": ["id": error.id, "code": error.status, "status": reasonPhrase(error.status),
                                             "reason": error.reason, "message": message(for: error.status)]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retry = error.retryAfter { headers[.retryAfter] = String(retry) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// A refusal of the shared layers (malformed JSON, 404, 405, 413, 429) in the Kratos envelope.
    static func response(_ error: DomainError, headers: HTTPFields) -> Response {
        let status = error.httpStatus
        var reason = error.message
        if let field = error.field, !reason.contains(field) { reason = "\(field): \(reason)" }
        var response = self.response(FlowError(status: status.code, id: error.id, reason: reason))
        for field in headers { response.headers.append(field) }
        return response
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
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
        default: HTTPResponse.Status(code: status).reasonPhrase.isEmpty ? "Error" : HTTPResponse.Status(code: status).reasonPhrase
        }
    }

    private static func message(for status: Int) -> String {
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
