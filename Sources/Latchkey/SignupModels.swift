import Foundation

/// Starts a phone sign-up: the number the code is sent to (E.164, e.g. `+439999999999`).
public struct StartSignupRequest: Sendable, Equatable {
    public var phoneNumber: String
    public init(phoneNumber: String) { self.phoneNumber = phoneNumber }
}

/// The flow a started sign-up continues with.
public struct StartSignupResponse: Sendable, Equatable {
    public var flowID: String
}

/// The code from the SMS, for the flow.
public struct VerifyPhoneNumberRequest: Sendable, Equatable {
    public var flowID: String
    public var otp: String
    public init(flowID: String, otp: String) {
        self.flowID = flowID
        self.otp = otp
    }
}

/// A verified phone; the same flow id.
public struct VerifyPhoneNumberResponse: Sendable, Equatable {
    public var flowID: String
}

/// The user's details that finish the sign-up.
public struct FinishSignupRequest: Sendable, Equatable {
    public var flowID: String
    public var password: String
    public var email: String?
    public var firstName: String
    public var lastName: String
    public var phoneNumber: String
    public init(flowID: String, password: String, email: String?, firstName: String, lastName: String, phoneNumber: String) {
        self.flowID = flowID
        self.password = password
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.phoneNumber = phoneNumber
    }
}

/// A finished sign-up: the same flow id. The session stays inside the SDK; the authentication
/// state stream and delegate report it.
public struct FinishSignupResponse: Sendable, Equatable {
    public var flowID: String
}

/// What went wrong in a sign-up step, as the document's `.signup(.otp(…))`.
public enum SignupError: Error, Sendable, Equatable {
    /// The code could not be sent (invalid number, throttled, flow gone).
    case otp(LatchkeyError)
    /// The code was not accepted.
    case verification(LatchkeyError)
    /// The registration was refused (phone not verified, password rules, already registered).
    case registration(LatchkeyError)
    /// The device key could not be registered; calling `finishSignupFlow` again retries this step.
    case deviceKey(LatchkeyError)
}

/// The error of a sign-up call: `.signup(…)` for the step's own refusals, `.other(…)` for any
/// other server or network error.
public enum SignupFlowError: Error, Sendable, Equatable {
    case signup(SignupError)
    case other(LatchkeyError)

    /// The underlying SDK error, with its code, domain and message.
    public var error: LatchkeyError {
        switch self {
        case .other(let error): error
        case .signup(.otp(let error)), .signup(.verification(let error)), .signup(.registration(let error)),
             .signup(.deviceKey(let error)): error
        }
    }
}
