import LatchkeyCore
import Foundation

/// The refusals of the self-service flow calls, Ory Kratos's errors; the catalogue (`ErrorKind`)
/// gives each its id and HTTP status, `ErrorDialect.kratos` renders them in Kratos's envelope.
extension DomainError {
    package static let flowNotFound = DomainError(.flowNotFound)
    package static let flowExpired = DomainError(.flowExpired)
    package static let flowUsed = DomainError(.flowUsed)
    package static let wrongFlowType = DomainError(.flowTypeMismatch)
    package static let noCode = DomainError(.otpNotSent)
    package static let alreadyVerified = DomainError(.otpAlreadyUsed)
    package static let codeExpired = DomainError(.otpExpired)
    package static let attemptsExhausted = DomainError(.otpAttemptsExhausted)
    package static let sessionInactive = DomainError(.sessionInactive)
    package static let unknownSessionToken = DomainError(.sessionNotFound)
    package static func wrongCode(remaining: Int) -> DomainError {
        if remaining == 1 { return DomainError(.otpInvalid, message: "The code is not correct; 1 try is left.") }
        return DomainError(.otpInvalid, message: "The code is not correct; \(remaining) tries are left.")
    }
    package static func tooMany(_ reason: LocalizableText, retryAfter: Int) -> DomainError {
        DomainError(.flowTooManyRequests, message: reason, retryAfter: retryAfter)
    }
}

/// A message of a Kratos flow's UI (`ui.messages` or a node's `messages`), with Kratos's ids.
public struct FlowMessage: Sendable, Equatable {
    public var id: Int
    public var text: String
    public var type = "error"

    package static func missing(_ field: String) -> FlowMessage { FlowMessage(id: 4_000_002, text: "Property \(field) is missing.") }
    package static func passwordPolicy(_ reason: String) -> FlowMessage {
        FlowMessage(id: 4_000_005, text: "The password can not be used because \(reason)")
    }
    package static let wrongCredentials = FlowMessage(
        id: 4_000_006, text: "The provided credentials are invalid, check for spelling mistakes in your password or username, "
            + "email address, or phone number.")
    package static let duplicate = FlowMessage(
        id: 4_000_007, text: "An account with the same identifier (email, phone, username, ...) exists already.")
    package static let emailNotVerified = FlowMessage(id: 4_000_010, text: "Account not active yet. Did you forget to verify your email address?")
    package static func generic(_ text: String) -> FlowMessage { FlowMessage(id: 4_000_001, text: text) }
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
