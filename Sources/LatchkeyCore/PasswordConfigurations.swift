/// The issuer's password rules (`PDUserPasswordConfigurations`).
public struct PasswordConfigurations: Codable, Sendable, Hashable {
    public var required: Bool
    public var passwordMinLength: Int
    public var passwordMaxLength: Int
    public var requiredLowerCaseCharacters: Bool
    public var requiredUpperCaseCharacters: Bool
    public var requiredNumericCharacters: Bool
    public var validCharacters: String

    public init(required: Bool = true, passwordMinLength: Int = 8, passwordMaxLength: Int = 64,
                requiredLowerCaseCharacters: Bool = false, requiredUpperCaseCharacters: Bool = false,
                requiredNumericCharacters: Bool = false, validCharacters: String = "a-zA-Z0-9~!@#$%^&*()-{}") {
        self.required = required
        self.passwordMinLength = passwordMinLength
        self.passwordMaxLength = passwordMaxLength
        self.requiredLowerCaseCharacters = requiredLowerCaseCharacters
        self.requiredUpperCaseCharacters = requiredUpperCaseCharacters
        self.requiredNumericCharacters = requiredNumericCharacters
        self.validCharacters = validCharacters
    }

    /// Latchkey's defaults (DESIGN §6): 8–64 characters.
    public static let `default` = PasswordConfigurations()

    /// Checks a proposed password; throws 419 naming `field` for the first rule it breaks.
    public func validate(_ password: String?, field: String) throws(DomainError) {
        guard let password, !password.isEmpty else {
            if required { throw .passwordRules("A password is required.", field: field) }
            return
        }
        // Lengths count Unicode code points, as NIST SP 800-63B and Django do (not grapheme clusters).
        let count = password.unicodeScalars.count
        if count < passwordMinLength {
            throw .passwordRules("The password must have at least \(passwordMinLength) characters.", field: field)
        }
        if count > passwordMaxLength {
            throw .passwordRules("The password must have at most \(passwordMaxLength) characters.", field: field)
        }
        if requiredLowerCaseCharacters, !password.contains(where: \.isLowercase) {
            throw .passwordRules("The password must contain a lower-case letter.", field: field)
        }
        if requiredUpperCaseCharacters, !password.contains(where: \.isUppercase) {
            throw .passwordRules("The password must contain an upper-case letter.", field: field)
        }
        if requiredNumericCharacters, !password.contains(where: \.isNumber) {
            throw .passwordRules("The password must contain a digit.", field: field)
        }
        if !CharacterClass(validCharacters).allows(password) {
            throw .passwordRules("The password contains a character outside \(validCharacters).", field: field)
        }
    }
}
