import Foundation
import LatchkeyDomain
import LatchkeyCore

extension IssuerSchemas {
    /// A value sealed to the server's key (`hpke1.…`, docs/api.md "Sealed credentials"): the
    /// issuer's rules apply to what it opens to, which no schema of the seal can say.
    static func sealed(_ what: String) -> Schema {
        ["type": "string", "pattern": "^hpke1\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
         "description": "Sealed (HPKE, GET /v1/enrollment/encryption-settings): \(what). The issuer's rules apply to the opened value."]
    }

    /// A new password (`PasswordConfigurations.validate` and the common-password list).
    var password: Schema {
        if issuer.encryption.password { return Self.sealed("the password") }
        let rules = issuer.password
        let valid = CharacterClass(rules.validCharacters)
        var schema: Schema = ["type": "string", "minLength": max(1, rules.passwordMinLength), "maxLength": rules.passwordMaxLength]
        // One pattern: the valid characters, and lookaheads for each kind required and against the
        // common passwords.
        var lookaheads = ""
        for (required, kind) in [(rules.requiredLowerCaseCharacters, \Character.isLowercase),
                                 (rules.requiredUpperCaseCharacters, \Character.isUppercase),
                                 (rules.requiredNumericCharacters, \Character.isNumber)] where required {
            // The kinds among the valid characters: exactly what the rule finds in a valid password.
            let ranges = Self.ranges(of: valid.ranges) { Character($0)[keyPath: kind] }
            guard !ranges.isEmpty else { return Self.refused.merging(["description": "No password meets these rules."]) { $1 } }
            lookaheads += "(?=[\\s\\S]*[" + Self.classText(ranges) + "])"
        }
        if issuer.rejectCommonPasswords, let common = commonPasswords(valid) { lookaheads += common }
        // The lengths in the quantifier too: a generator then draws values of the right length.
        schema["pattern"] = "^" + lookaheads + "[" + Self.classText(valid.ranges) + "]"
            + "{\(max(1, rules.passwordMinLength)),\(rules.passwordMaxLength)}$"
        schema["description"] = "The issuer's password rules (\(rules.passwordMinLength)–\(rules.passwordMaxLength) characters of "
            + "\(rules.validCharacters))" + (issuer.rejectCommonPasswords ? ", not a common password (compared ignoring case)." : ".")
            + " A change also refuses the last \(issuer.passwordHistory) passwords, which no schema can say."
        return rules.required ? schema : ["type": "string", "anyOf": [["maxLength": 0], schema]]
    }

    /// A PIN (`PasscodeConfigurations.validate`).
    var passcode: Schema {
        if issuer.encryption.pin { return Self.sealed("the PIN") }
        let rules = issuer.passcode
        guard rules.validationEnabled else { return ["type": "string", "minLength": 1] }
        var ranges = CharacterClass(rules.regularExpression).ranges
        if rules.numericOnly { ranges = Self.ranges(of: ranges) { ("0"..."9").contains($0) } }
        guard !ranges.isEmpty else { return Self.refused.merging(["description": "No PIN meets these rules."]) { $1 } }
        // The runs the rule refuses, spelled out (every pair of one character, every ascending
        // triple) in lookaheads: generators read a pattern's lookaheads where they may miss a `not`.
        let scalars = Self.scalars(in: ranges, limit: 4096)
        var refused: [String] = []
        if !rules.allowSameValues { refused.append(scalars.map { Self.escape($0) + Self.escape($0) }.joined(separator: "|")) }
        if !rules.allowIncrementalValues {
            let present = Set(scalars.map(\.value))
            let triples = scalars.filter { present.contains($0.value + 1) && present.contains($0.value + 2) }
                .map { [$0.value, $0.value + 1, $0.value + 2].compactMap(Unicode.Scalar.init).map(Self.escape).joined() }
            if !triples.isEmpty { refused.append(triples.joined(separator: "|")) }
        }
        let lookaheads = refused.map { "(?![\\s\\S]*(?:" + $0 + "))" }.joined()
        var schema: Schema = ["type": "string", "minLength": rules.length, "maxLength": rules.length,
                              "pattern": "^" + lookaheads + "[" + Self.classText(ranges) + "]{\(rules.length)}$"]
        schema["description"] = "The issuer's PIN rules: \(rules.length) characters of \(rules.regularExpression)"
            + (rules.allowSameValues ? "" : ", no character twice in a row") + (rules.allowIncrementalValues ? "" : ", no three ascending") + "."
        return schema
    }

    /// One MFA answer (`EnrollmentRules.validateMFAAnswers`): 1–100 characters, not only blanks.
    var mfaAnswer: Schema {
        if issuer.encryption.mfaAnswers { return Self.sealed("the answer") }
        return ["type": "string", "maxLength": 100, "pattern": "[^" + Blanks.spacesAndNewlinesClass + "]"]
    }

    /// The MFA answers as a map: exactly the issuer's number, questions of the pool only, every
    /// mandatory question.
    var mfaAnswers: Schema {
        let count = issuer.mfa.numberOfRequiredQuestions
        return ["type": "object", "minProperties": count, "maxProperties": count,
                "propertyNames": ["enum": issuer.mfa.questions.map(\.mfaQuestion)],
                "required": issuer.mfa.questions.filter(\.isMandatory).map(\.mfaQuestion),
                "additionalProperties": mfaAnswer,
                "description": "Exactly \(count) of the issuer's questions, each once, every mandatory one."]
    }

    /// The MFA answers as SSO registration's list: the same rules, each question at most once.
    var mfaSecurityProfiles: Schema {
        let count = issuer.mfa.numberOfRequiredQuestions
        let once: [Schema] = issuer.mfa.questions.map { question in
            ["contains": ["properties": ["question": ["const": question.mfaQuestion]]],
             "minContains": question.isMandatory ? 1 : 0, "maxContains": 1]
        }
        return ["type": "array", "minItems": max(1, count), "maxItems": count, "allOf": once,
                "items": ["type": "object", "required": ["question", "answer"],
                          "properties": ["question": ["enum": issuer.mfa.questions.map(\.mfaQuestion)], "answer": mfaAnswer]]]
    }
}

extension IssuerSchemas {
    /// The ranges written inside a character class, every character but letters and digits escaped.
    static func classText(_ ranges: [ClosedRange<Unicode.Scalar>]) -> String {
        ranges.map { $0.lowerBound == $0.upperBound ? escape($0.lowerBound) : escape($0.lowerBound) + "-" + escape($0.upperBound) }.joined()
    }

    /// A scalar as ECMA-262 and Python's `re` both read it literally.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) { return String(scalar) }
        if scalar.value <= 0xFFFF { return String(format: "\\u%04x", scalar.value) }
        return String(scalar)
    }

    /// The scalars of `ranges` that `keep` keeps, as ranges.
    static func ranges(of ranges: [ClosedRange<Unicode.Scalar>], where keep: (Unicode.Scalar) -> Bool) -> [ClosedRange<Unicode.Scalar>] {
        var result: [ClosedRange<Unicode.Scalar>] = []
        for scalar in scalars(in: ranges, limit: 0x110000) where keep(scalar) {
            if let last = result.last, last.upperBound.value + 1 == scalar.value {
                result[result.count - 1] = last.lowerBound...scalar
            } else {
                result.append(scalar...scalar)
            }
        }
        return result
    }

    static func scalars(in ranges: [ClosedRange<Unicode.Scalar>], limit: Int) -> [Unicode.Scalar] {
        var seen = Set<UInt32>(), result: [Unicode.Scalar] = []
        for range in ranges {
            for value in range.lowerBound.value...range.upperBound.value where result.count < limit {
                if let scalar = Unicode.Scalar(value), seen.insert(value).inserted { result.append(scalar) }
            }
        }
        return result.sorted { $0.value < $1.value }
    }

    /// A pattern refusing the common passwords a password of these rules could be (`CommonPasswords`:
    /// compared trimmed and ignoring case), as a lookahead; nil when none could.
    func commonPasswords(_ valid: CharacterClass) -> String? {
        let rules = issuer.password
        let blanks = "[" + Blanks.spacesClass + "]*"
        let trimmed = Self.scalars(in: valid.ranges, limit: 0x110000).contains { Blanks.spaces.contains($0) }
        let candidates = CommonPasswords.set.filter { entry in
            let count = entry.unicodeScalars.count
            return count <= rules.passwordMaxLength && (trimmed || count >= rules.passwordMinLength)
                && entry.unicodeScalars.allSatisfy { scalar in
                    String(scalar).uppercased().unicodeScalars.allSatisfy(valid.contains) || valid.contains(scalar)
                }
        }
        guard !candidates.isEmpty else { return nil }
        let alternatives = candidates.sorted().map { $0.unicodeScalars.map(Self.escape).joined() }
        return "(?!" + blanks + "(?i:" + alternatives.joined(separator: "|") + ")" + blanks + "$)"
    }
}
