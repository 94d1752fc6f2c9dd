import Foundation

/// Everything that decides whether a registration is acceptable: the issuer's password,
/// passcode and MFA settings and the field metadata. The server and the SDK check with the same
/// rules, so an app learns of a mistake before it sends anything.
public struct EnrollmentRules: Sendable, Equatable {
    public var password: PasswordConfigurations
    public var passcode: PasscodeConfigurations
    public var mfa: MFAQuestions
    public var metadata: ProfileMetadata

    public init(password: PasswordConfigurations = .default, passcode: PasscodeConfigurations = .default,
                mfa: MFAQuestions, metadata: ProfileMetadata = .default) {
        self.password = password
        self.passcode = passcode
        self.mfa = mfa
        self.metadata = metadata
    }
}

extension EnrollmentRules {
    /// Validates a whole registration profile. Field and MFA problems are 400 naming the field,
    /// password problems 419, passcode problems 420; the first problem found is thrown.
    public func validateRegistration(_ profile: UserProfile) throws(DomainError) {
        let prefix = "userProfile."
        let fields = metadata.userProfile
        try check(profile.firstName, ProfileMetadata.Key.firstName, fields, prefix + "firstName")
        try check(profile.lastName, ProfileMetadata.Key.lastName, fields, prefix + "lastName")
        try check(profile.email, ProfileMetadata.Key.email, fields, prefix + "email")
        if let email = profile.email, !EmailAddress.isValid(email) {
            throw .invalidField(prefix + "email", "The email address is not valid.")
        }
        try check(profile.phone, ProfileMetadata.Key.mobileNumber, fields, prefix + "phone")
        try check(profile.externalId, ProfileMetadata.Key.externalId, fields, prefix + "externalId")
        if let address = addressToValidate(profile.addressInformation) { try validate(address, field: prefix + "addressInformation") }
        try validateAdditionalInformation(profile.additionalCustomerInformation, field: prefix + "additionalCustomerInformation")

        // The confirmations are the app's typing check: compared when sent (JSON Schema cannot say
        // that two values must be equal, so the served contract leaves them out).
        try password.validate(profile.password, field: prefix + "password")
        if let confirm = profile.confirmPassword, confirm != profile.password {
            throw .invalidField(prefix + "confirmPassword", "The password and its confirmation differ.")
        }
        try passcode.validate(profile.passcode, field: prefix + "passcode")
        if let confirm = profile.confirmPasscode, confirm != profile.passcode {
            throw .invalidField(prefix + "confirmPasscode", "The passcode and its confirmation differ.")
        }
        try validateMFAAnswers(profile.mfaAnswers, field: prefix + "mfaAnswers")
    }

    /// Validates an SSO registration (`registerCustomer`): the profile fields as for
    /// `registerNewUser` but without a password (the provider authenticates the user), the passcode
    /// (420, which the call reports as the spec's 408), and the MFA answers.
    public func validateCustomerRegistration(_ profile: UserProfile) throws(DomainError) {
        try validateProfileFields(profile)
        try passcode.validate(profile.passcode, field: "passcode")
        try validateMFAAnswers(profile.mfaAnswers, field: "mfaSecurityProfiles")
    }

    /// Validates a set of MFA answers: exactly the issuer's number, questions from the pool only,
    /// every mandatory question answered, no empty answer.
    public func validateMFAAnswers(_ answers: [String: String]?, field: String) throws(DomainError) {
        let answers = answers ?? [:]
        let required = mfa.numberOfRequiredQuestions
        if answers.count != required {
            throw .invalidField(field, "Exactly \(required) MFA answers are required; \(answers.count) were given.")
        }
        let pool = Set(mfa.mfaQuestions)
        for (question, answer) in answers.sorted(by: { $0.key < $1.key }) {
            if !pool.contains(question) {
                throw .invalidField(field, "\"\(question)\" is not one of the issuer's MFA questions.")
            }
            if !Self.isAcceptableAnswer(answer) {
                throw .invalidField(field, "Each MFA answer must have 1 to 100 characters.")
            }
        }
        for question in mfa.mfaQuestionsWithMetadata where question.isMandatory && answers[question.mfaQuestion] == nil {
            throw .invalidField(field, "The mandatory question \"\(question.mfaQuestion)\" must be answered.")
        }
    }

    /// Validates the profile fields a registration checks besides credentials — names, email,
    /// phone, external id, address, additional information — each field named as itself (an SSO
    /// registration, an imported user). Throws `DomainError` (400) naming the first field at fault.
    public func validateProfileFields(_ profile: UserProfile, requireAddress: Bool = true) throws(DomainError) {
        let fields = metadata.userProfile
        try check(profile.firstName, ProfileMetadata.Key.firstName, fields, "firstName")
        try check(profile.lastName, ProfileMetadata.Key.lastName, fields, "lastName")
        try check(profile.email, ProfileMetadata.Key.email, fields, "email")
        if let email = profile.email, !EmailAddress.isValid(email) { throw .invalidField("email", "The email address is not valid.") }
        try check(profile.phone, ProfileMetadata.Key.mobileNumber, fields, "phone")
        try check(profile.externalId, ProfileMetadata.Key.externalId, fields, "externalId")
        if let address = requireAddress ? addressToValidate(profile.addressInformation) : profile.addressInformation {
            try validate(address, field: "address")
        }
        try validateAdditionalInformation(profile.additionalCustomerInformation, field: "additionalCustomerInformation")
    }

    /// The address a registration checks: the one given, or an empty one when the issuer requires
    /// an address field (so its absence is refused).
    func addressToValidate(_ address: AddressInformation?) -> AddressInformation? {
        address ?? (metadata.addressInformation.contains(where: \.required) ? AddressInformation() : nil)
    }

    /// Validates an address against the address metadata. An address sent in an update replaces
    /// the stored one, so its required fields must be in it too.
    public func validate(_ address: AddressInformation, field: String, operation: FieldOperation = .create) throws(DomainError) {
        let group = metadata.addressInformation
        let K = ProfileMetadata.Key.self
        if operation == .update {
            for rule in group where rule.required {
                guard let name = ProfileMetadata.addressProperties[rule.key] else { continue }
                if (address[name] ?? "").isEmpty { throw .invalidField(field + "." + name, "\(rule.name) is required.") }
            }
        }
        try check(address.state, K.state, group, field + ".state", operation)
        try check(address.country, K.country, group, field + ".country", operation)
        try check(address.addressLine1, K.addressLine1, group, field + ".addressLine1", operation)
        try check(address.addressLine2, K.addressLine2, group, field + ".addressLine2", operation)
        try check(address.city, K.city, group, field + ".city", operation)
        try check(address.zipCode, K.zipCode, group, field + ".zipCode", operation)
    }

    /// Validates additional customer information at creation: its shape
    /// (`validateAdditionalInformationShape`) and the keys the issuer defined
    /// (`metadata.additionalCustomerInformation`) by their metadata, every required one present.
    public func validateAdditionalInformation(_ info: [String: String]?, field: String) throws(DomainError) {
        let info = info ?? [:]
        try validateAdditionalInformationShape(info, field: field)
        for rule in metadata.additionalCustomerInformation.sorted(by: { $0.order < $1.order }) {
            try rule.validate(info[rule.key], field: field + "." + rule.key, operation: .create)
        }
    }

    /// Validates the additional information of an update (a value replaces, `nil` removes): the
    /// defined keys it sets by their metadata; a required key or one that cannot be changed is
    /// not removed.
    public func validateAdditionalInformationUpdate(_ changes: [String: String?], field: String) throws(DomainError) {
        try validateAdditionalInformationShape(changes.compactMapValues { $0 }, field: field)
        for rule in metadata.additionalCustomerInformation.sorted(by: { $0.order < $1.order }) {
            guard let change = changes[rule.key] else { continue }
            guard let value = change else {
                if rule.required { throw .invalidField(field + "." + rule.key, "\(rule.name) is required and cannot be removed.") }
                if !rule.updatesAllowed { throw .invalidField(field + "." + rule.key, "\(rule.name) cannot be changed.") }
                continue
            }
            try rule.validate(value, field: field + "." + rule.key, operation: .update)
        }
    }

    /// An MFA answer has 1 to 100 characters (code points) and something besides blanks: the
    /// server compares answers trimmed of `Blanks.spacesAndNewlines`, so one of only line breaks
    /// would be the empty answer.
    public static func isAcceptableAnswer(_ answer: String) -> Bool {
        !answer.trimmingCharacters(in: Blanks.spacesAndNewlines).isEmpty && answer.unicodeScalars.count <= 100
    }

    /// At most 50 keys of 1–64 characters, values up to 256.
    public func validateAdditionalInformationShape(_ info: [String: String], field: String) throws(DomainError) {
        if info.count > 50 { throw .invalidField(field, "At most 50 additional properties are allowed.") }
        for (key, value) in info.sorted(by: { $0.key < $1.key }) {
            if key.isEmpty || key.unicodeScalars.count > 64 { throw .invalidField(field, "Property names must have 1 to 64 characters.") }
            if value.unicodeScalars.count > 256 { throw .invalidField(field + "." + key, "Values must have at most 256 characters.") }
        }
    }

    /// `profile` with the issuer's default values where it has none (`defaultValue`).
    public func applyingDefaults(_ profile: UserProfile) -> UserProfile {
        var profile = profile
        func fill(_ value: inout String?, _ key: String, _ group: [FieldMetadata]) {
            if (value ?? "").isEmpty, let rule = ProfileMetadata.field(key, in: group), rule.canBeUsedToCreate,
               let fallback = rule.defaultValue { value = fallback }
        }
        let K = ProfileMetadata.Key.self
        fill(&profile.firstName, K.firstName, metadata.userProfile)
        fill(&profile.lastName, K.lastName, metadata.userProfile)
        fill(&profile.externalId, K.externalId, metadata.userProfile)
        if profile.addressInformation != nil || metadata.addressInformation.contains(where: { $0.defaultValue != nil }) {
            var address = profile.addressInformation ?? AddressInformation()
            fill(&address.state, K.state, metadata.addressInformation)
            fill(&address.country, K.country, metadata.addressInformation)
            fill(&address.addressLine1, K.addressLine1, metadata.addressInformation)
            fill(&address.addressLine2, K.addressLine2, metadata.addressInformation)
            fill(&address.city, K.city, metadata.addressInformation)
            fill(&address.zipCode, K.zipCode, metadata.addressInformation)
            profile.addressInformation = address
        }
        let defaults = metadata.additionalCustomerInformation.filter { $0.canBeUsedToCreate && $0.defaultValue != nil }
        if !defaults.isEmpty {
            var info = profile.additionalCustomerInformation ?? [:]
            for rule in defaults where (info[rule.key] ?? "").isEmpty { info[rule.key] = rule.defaultValue }
            profile.additionalCustomerInformation = info
        }
        return profile
    }

    private func check(_ value: String?, _ key: String, _ group: [FieldMetadata], _ field: String,
                       _ operation: FieldOperation = .create) throws(DomainError) {
        guard let metadata = ProfileMetadata.field(key, in: group) else { return }
        try metadata.validate(value, field: field, operation: operation)
    }
}
