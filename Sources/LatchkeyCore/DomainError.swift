/// A rule of the domain that a request broke: the documented code, a stable id, a message and,
/// when one field is at fault, its name.
///
/// Messages never contain the secret values they are about.
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: StatusCode
    public var id: String
    public var message: String
    public var field: String?

    public init(code: StatusCode, id: String, message: String, field: String? = nil) {
        self.code = code
        self.id = id
        self.message = message
        self.field = field
    }

    public var description: String {
        field.map { "\(code) \(id) (\($0)): \(message)" } ?? "\(code) \(id): \(message)"
    }

    /// 400: a field is missing, malformed or breaks its metadata rule.
    public static func invalidField(_ field: String, _ message: String) -> DomainError {
        DomainError(code: .invalidParameter, id: "invalid_field", message: message, field: field)
    }

    /// 416: the email address is used by another wallet.
    public static func emailInUse(field: String = "userProfile.email") -> DomainError {
        DomainError(code: .emailInUse, id: "email_in_use",
                    message: "The email address is already in use by an existing wallet.", field: field)
    }

    /// 417: a new credential and its confirmation differ (credential changes).
    public static func confirmationMismatch(field: String) -> DomainError {
        DomainError(code: .confirmationMismatch, id: "confirmation_mismatch",
                    message: "The new value and its confirmation differ.", field: field)
    }

    /// 419: the password breaks an issuer rule.
    public static func passwordRules(_ message: String, field: String) -> DomainError {
        DomainError(code: .passwordRules, id: "password_rules", message: message, field: field)
    }

    /// 420: the passcode breaks an issuer rule.
    public static func passcodeRules(_ message: String, field: String) -> DomainError {
        DomainError(code: .passcodeRules, id: "passcode_rules", message: message, field: field)
    }
}
