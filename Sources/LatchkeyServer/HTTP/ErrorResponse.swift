import Foundation
import Hummingbird
import LatchkeyCore
import NIOCore

/// The error envelope of DESIGN §3: `{"error": {"code", "id", "message", "field"}}`.
struct ErrorEnvelope: Encodable {
    struct Body: Encodable {
        var code: Int
        var id: String
        var message: String
        var field: String?
    }
    var error: Body
}

extension DomainError {
    /// The standard HTTP status for a documented code; codes that are not standard or would
    /// mislead (416, 419, 420, …) travel only in the body.
    var httpStatus: HTTPResponse.Status {
        switch code {
        case .invalidParameter: .badRequest
        case .unauthorized, .notLoggedIn: .unauthorized
        case .emailNotVerified, .passwordExpired, .appInstanceNotVerified, .deviceTokensDisabled, .mfaRequired: .forbidden
        case .walletDeactivated, .deviceDeactivated: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
        case .passwordRules where id == "wrong_credentials": .unauthorized
        case .notFound: .notFound
        case .unknownEmail where id == "unknown_email": .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .payloadTooLarge: .contentTooLarge
        case .emailInUse: id == "email_in_use" ? .conflict : .forbidden
        case .passwordReused: .unprocessableContent
        case .confirmationMismatch: .badRequest
        case .accountLocked: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
        case .passwordRules, .passcodeRules: .unprocessableContent
        case .tooManyRequests: .tooManyRequests
        case .unavailable: id == "not_ready" ? .serviceUnavailable : .forbidden
        case .serverError where id == "provider_unavailable": .badGateway
        case .serverError where id == "provider_timeout": .gatewayTimeout
        case 408, 410: .unprocessableContent
        default: code.rawValue >= 500 ? .internalServerError : .badRequest
        }
    }

    /// The error as an HTTP response.
    func response(status: HTTPResponse.Status? = nil, headers: HTTPFields = [:]) -> Response {
        let envelope = ErrorEnvelope(error: .init(code: code.rawValue, id: id, message: message, field: field))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(envelope)) ?? Data()
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status ?? httpStatus, headers: fields, body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
