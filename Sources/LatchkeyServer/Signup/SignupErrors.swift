import Foundation

/// A refusal of a self-service flow call, in Ory Kratos's terms: the HTTP status a Kratos client
/// expects, a stable id and a reason. Only the server module renders it.
public struct FlowError: Error, Sendable, Equatable {
    public var status: Int
    public var id: String
    public var reason: String
    public var retryAfter: Int?

    public init(status: Int, id: String, reason: String, retryAfter: Int? = nil) {
        self.status = status
        self.id = id
        self.reason = reason
        self.retryAfter = retryAfter
    }

    static let flowNotFound = FlowError(status: 404, id: "self_service_flow_not_found",
                                        reason: "The flow does not exist. Start a new one.")
    static let flowExpired = FlowError(status: 410, id: "self_service_flow_expired",
                                       reason: "The flow expired. Start a new one.")
    static let flowUsed = FlowError(status: 410, id: "self_service_flow_used",
                                    reason: "The flow was already completed. Start a new one.")
    static let wrongFlowType = FlowError(status: 400, id: "self_service_flow_type_mismatch",
                                         reason: "The flow is of another kind than this call needs.")
    static let noCode = FlowError(status: 400, id: "otp_not_sent", reason: "No code was sent for this flow yet.")
    static let alreadyVerified = FlowError(status: 409, id: "otp_already_used",
                                           reason: "The phone is already verified for this flow; finish the sign-up.")
    static let codeExpired = FlowError(status: 410, id: "otp_expired", reason: "The code expired. Ask for a new one.")
    static let attemptsExhausted = FlowError(status: 403, id: "otp_attempts_exhausted",
                                             reason: "Too many wrong codes for this flow. Start a new sign-up.")
    static let sessionInactive = FlowError(status: 401, id: "session_inactive",
                                           reason: "No valid session credentials found in the request.")
    static let unknownSessionToken = FlowError(status: 403, id: "session_not_found",
                                               reason: "The session token is unknown.")
    static func invalid(_ field: String, _ reason: String) -> FlowError {
        FlowError(status: 400, id: "invalid_field", reason: "\(field): \(reason)")
    }
    static func wrongCode(remaining: Int) -> FlowError {
        FlowError(status: 400, id: "otp_invalid",
                  reason: "The code is not correct; \(remaining) \(remaining == 1 ? "try is" : "tries are") left.")
    }
    static func tooMany(_ reason: String, retryAfter: Int) -> FlowError {
        FlowError(status: 429, id: "too_many_requests", reason: reason, retryAfter: retryAfter)
    }
}

/// A message of a Kratos flow's UI (`ui.messages` or a node's `messages`), with Kratos's ids.
public struct FlowMessage: Sendable, Equatable {
    public var id: Int
    public var text: String
    public var type = "error"

    static func missing(_ field: String) -> FlowMessage { FlowMessage(id: 4_000_002, text: "Property \(field) is missing.") }
    static func passwordPolicy(_ reason: String) -> FlowMessage {
        FlowMessage(id: 4_000_005, text: "The password can not be used because \(reason)")
    }
    static let wrongCredentials = FlowMessage(
        id: 4_000_006, text: "The provided credentials are invalid, check for spelling mistakes in your password or username, "
            + "email address, or phone number.")
    static let duplicate = FlowMessage(
        id: 4_000_007, text: "An account with the same identifier (email, phone, username, ...) exists already.")
    static let emailNotVerified = FlowMessage(id: 4_000_010, text: "Account not active yet. Did you forget to verify your email address?")
    static func generic(_ text: String) -> FlowMessage { FlowMessage(id: 4_000_001, text: text) }
}

/// A form the client must correct: the flow is answered again (HTTP 400) with these messages,
/// on the flow (`field` nil) or on the node named `field`.
public struct FlowFormError: Error, Sendable, Equatable {
    public var flow: FlowRecord
    public var messages: [(field: String?, message: FlowMessage)]

    public static func == (lhs: FlowFormError, rhs: FlowFormError) -> Bool {
        lhs.flow == rhs.flow && lhs.messages.map(\.message) == rhs.messages.map(\.message)
    }
}
