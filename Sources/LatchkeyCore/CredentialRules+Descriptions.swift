/// The issuer's credential rules as sentences a user can read next to a form.
extension PasswordConfigurations {
    /// One sentence per rule, e.g. "8 to 64 characters", to be said in the reader's language.
    public var ruleTexts: [LocalizableText] {
        var rules: [LocalizableText] = []
        rules.append("\(passwordMinLength) to \(passwordMaxLength) characters")
        if requiredLowerCaseCharacters { rules.append("at least one lower-case letter") }
        if requiredUpperCaseCharacters { rules.append("at least one upper-case letter") }
        if requiredNumericCharacters { rules.append("at least one digit") }
        if !validCharacters.isEmpty { rules.append("only these characters: \(validCharacters)") }
        return rules
    }

    /// The rules in English.
    public var ruleDescriptions: [String] { ruleTexts.map(\.english) }
}

extension PasscodeConfigurations {
    /// One sentence per rule, e.g. "exactly 6 digits", to be said in the reader's language.
    public var ruleTexts: [LocalizableText] {
        var rules: [LocalizableText] = []
        if numericOnly { rules.append("exactly \(length) digits") } else { rules.append("exactly \(length) characters") }
        if validationEnabled && !allowSameValues { rules.append("no digit twice in a row (such as 7788)") }
        if validationEnabled && !allowIncrementalValues { rules.append("no three ascending digits in a row (such as 123)") }
        return rules
    }

    /// The rules in English.
    public var ruleDescriptions: [String] { ruleTexts.map(\.english) }
}
