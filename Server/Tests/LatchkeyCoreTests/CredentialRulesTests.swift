import LatchkeyCore
import Testing

@Suite struct CredentialRulesTests {
    let passcode = PasscodeConfigurations.default
    let password = PasswordConfigurations.default

    @Test(arguments: ["111111", "123456", "901234", "12345", "1234567", "12a456", "775533", ""])
    func passcodeRefused(_ value: String) {
        #expect(throws: DomainError.self) { try passcode.validate(value, field: "passcode") }
        do { try passcode.validate(value, field: "passcode") } catch {
            #expect(error.code == .passcodeRules)
            #expect(error.field == "passcode")
            #expect(!error.message.contains(value) || value.isEmpty)
        }
    }

    @Test(arguments: ["314159", "271828", "135792", "908172"])
    func passcodeAccepted(_ value: String) throws {
        try passcode.validate(value, field: "passcode")
    }

    @Test func sameValuesAndRunsAreIssuerSettings() throws {
        let lenient = PasscodeConfigurations(length: 4, allowSameValues: true, allowIncrementalValues: true)
        try lenient.validate("7788", field: "p")
        try lenient.validate("1234", field: "p")
        #expect(throws: DomainError.self) { try PasscodeConfigurations(length: 4).validate("7788", field: "p") }
    }

    /// Lengths count Unicode code points (NIST SP 800-63B, Django), not grapheme clusters: four
    /// decomposed "é" (e + U+0301) are eight characters.
    @Test func passwordLengthsCountCodePoints() throws {
        let rules = PasswordConfigurations(validCharacters: "a-z\u{301}")
        try rules.validate(String(repeating: "e\u{301}", count: 4), field: "pw")
        #expect(throws: DomainError.self) { try rules.validate(String(repeating: "e\u{301}", count: 3) + "e", field: "pw") }
    }

    @Test func passwordLengthsAndClasses() throws {
        try password.validate("abcdefgh", field: "password")
        #expect(throws: DomainError.passwordRules("The password must have at least 8 characters.", field: "pw")) {
            try password.validate("abc", field: "pw")
        }
        #expect(throws: DomainError.self) { try password.validate(String(repeating: "a", count: 65), field: "pw") }
        #expect(throws: DomainError.self) { try password.validate("has space1", field: "pw") }
        let strict = PasswordConfigurations(requiredLowerCaseCharacters: true, requiredUpperCaseCharacters: true,
                                            requiredNumericCharacters: true)
        #expect(throws: DomainError.self) { try strict.validate("alllower1", field: "pw") }
        #expect(throws: DomainError.self) { try strict.validate("ALLUPPER1", field: "pw") }
        #expect(throws: DomainError.self) { try strict.validate("NoDigitsHere", field: "pw") }
        try strict.validate("Mixed-Case-1", field: "pw")
    }

    @Test func characterClassTreatsStrayHyphenLiterally() {
        let valid = CharacterClass("a-zA-Z0-9~!@#$%^&*()-{}")
        #expect(valid.allows("abc-XYZ-09{}"))
        #expect(!valid.allows("a+b"))
        #expect(!valid.allows("a;b"))
        #expect(!valid.allows("é"))
        #expect(CharacterClass("0-9").allows("0123456789"))
        #expect(!CharacterClass("0-9").allows("12a"))
    }

    @Test(arguments: [("a@b.co", true), ("first.last+tag@example.com", true), ("no-at.example.com", false),
                      ("two@@example.com", false), ("a@nodot", false), ("a b@example.com", false), ("@example.com", false),
                      ("a@example..com", false)])
    func emailSyntax(_ email: String, _ valid: Bool) {
        #expect(EmailAddress.isValid(email) == valid)
    }
}
