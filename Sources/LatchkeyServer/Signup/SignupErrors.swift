import LatchkeyCore
import Foundation

/// The refusals of the self-service flow calls, Ory Kratos's errors; the catalogue (`ErrorKind`)
/// gives each its id and HTTP status, `ErrorDialect.kratos` renders them in Kratos's envelope.
extension DomainError {
    static let flowNotFound = DomainError(.flowNotFound)
    static let flowExpired = DomainError(.flowExpired)
    static let flowUsed = DomainError(.flowUsed)
    static let wrongFlowType = DomainError(.flowTypeMismatch)
    static let noCode = DomainError(.otpNotSent)
    static let alreadyVerified = DomainError(.otpAlreadyUsed)
    static let codeExpired = DomainError(.otpExpired)
    static let attemptsExhausted = DomainError(.otpAttemptsExhausted)
    static let sessionInactive = DomainError(.sessionInactive)
    static let unknownSessionToken = DomainError(.sessionNotFound)
    static func wrongCode(remaining: Int) -> DomainError {
        DomainError(.otpInvalid,
                    message: "The code is not correct; \(remaining) \(remaining == 1 ? "try is" : "tries are") left.")
    }
    static func tooMany(_ reason: String, retryAfter: Int) -> DomainError {
        DomainError(.flowTooManyRequests, message: reason, retryAfter: retryAfter)
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
