/// A rule of the domain that a request broke: the catalogue entry (`ErrorKind`: id, spec code,
/// HTTP status), the message and, when one field is at fault, its name.
///
/// Messages never contain the secret values they are about. The message is a `LocalizableText`,
/// so the server can answer it in the language of the request (`message` is its English).
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    public var kind: ErrorKind
    /// The message as a key and its values.
    public var text: LocalizableText
    public var field: String?
    /// Seconds after which a refused request may be tried again (`Retry-After`), when it applies.
    public var retryAfter: Int?

    /// An error of the catalogue; `message` defaults to the entry's.
    public init(_ kind: ErrorKind, message: LocalizableText? = nil, field: String? = nil, retryAfter: Int? = nil) {
        self.kind = kind
        self.text = message ?? LocalizableText(verbatim: kind.defaultMessage)
        self.field = field
        self.retryAfter = retryAfter
    }

    /// The message in English; setting it sets a text that no catalog translates.
    public var message: String {
        get { text.english }
        set { text = LocalizableText(verbatim: newValue) }
    }

    /// The code the spec documents (the body's `code`).
    public var code: StatusCode { kind.code }
    /// The stable wire id.
    public var id: ErrorID { kind.id }

    /// Errors are equal when they say the same (the same English), whether a message was built
    /// from a literal or an interpolation.
    public static func == (lhs: DomainError, rhs: DomainError) -> Bool {
        lhs.kind == rhs.kind && lhs.message == rhs.message && lhs.field == rhs.field && lhs.retryAfter == rhs.retryAfter
    }

    public var description: String {
        field.map { "\(code) \(id) (\($0)): \(message)" } ?? "\(code) \(id): \(message)"
    }

    /// 400: a field is missing, malformed or breaks its metadata rule.
    public static func invalidField(_ field: String, _ message: LocalizableText) -> DomainError {
        DomainError(.invalidField, message: message, field: field)
    }

    /// 416: the email address is used by another wallet.
    public static func emailInUse(field: String = "userProfile.email") -> DomainError {
        DomainError(.emailInUse, field: field)
    }

    /// 417: a new credential and its confirmation differ (credential changes).
    public static func confirmationMismatch(field: String) -> DomainError {
        DomainError(.confirmationMismatch, field: field)
    }

    /// 419: the password breaks an issuer rule.
    public static func passwordRules(_ message: LocalizableText, field: String) -> DomainError {
        DomainError(.passwordRules, message: message, field: field)
    }

    /// 420: the passcode breaks an issuer rule.
    public static func passcodeRules(_ message: LocalizableText, field: String) -> DomainError {
        DomainError(.passcodeRules, message: message, field: field)
    }
}
