/// An update of the profile (`updateUserProfile`) with the spec's conventions: a nil property is
/// left as it is, except `externalId`, which is removed unless sent again; in
/// `additionalCustomerInformation` a value replaces and a nil value deletes; `addressInformation`,
/// when sent, replaces the stored address; `mfaAnswers`, when sent, replaces all answers.
public struct ProfileUpdate: Sendable, Equatable {
    public var firstName: String?
    public var lastName: String?
    public var email: String?
    public var phone: String?
    public var externalId: String?
    public var password: String?
    public var passcode: String?
    public var mfaAnswers: [String: String]?
    public var additionalCustomerInformation: [String: String?]?
    public var addressInformation: AddressInformation?

    public init(firstName: String? = nil, lastName: String? = nil, email: String? = nil, phone: String? = nil,
                externalId: String? = nil, password: String? = nil, passcode: String? = nil,
                mfaAnswers: [String: String]? = nil, additionalCustomerInformation: [String: String?]? = nil,
                addressInformation: AddressInformation? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.phone = phone
        self.externalId = externalId
        self.password = password
        self.passcode = passcode
        self.mfaAnswers = mfaAnswers
        self.additionalCustomerInformation = additionalCustomerInformation
        self.addressInformation = addressInformation
    }
}

extension EnrollmentRules {
    /// Validates an update against the field metadata (its can-be-used-while-updating flags
    /// included) and the MFA rules; 400 naming the field.
    public func validateUpdate(_ update: ProfileUpdate) throws(DomainError) {
        if update.password != nil { throw .invalidField("password", "Change the password with updateUserPassword.") }
        if update.passcode != nil { throw .invalidField("passcode", "Change the passcode with updateUserPasscode.") }
        let fields = metadata.userProfile
        let K = ProfileMetadata.Key.self
        for (value, key, field) in [(update.firstName, K.firstName, "firstName"), (update.lastName, K.lastName, "lastName"),
                                    (update.email, K.email, "email"), (update.phone, K.mobileNumber, "phone"),
                                    (update.externalId, K.externalId, "externalId")] {
            guard let value, let rule = ProfileMetadata.field(key, in: fields) else { continue }
            try rule.validate(value, field: field, operation: .update)
        }
        // The external id is replaced by every update (the spec's reading): a required one must be sent.
        if let rule = ProfileMetadata.field(K.externalId, in: fields), rule.required, (update.externalId ?? "").isEmpty {
            throw .invalidField("externalId", "\(rule.name) is required: send it with every update.")
        }
        if let email = update.email, !EmailAddress.isValid(email) {
            throw .invalidField("email", "The email address is not valid.")
        }
        if let address = update.addressInformation { try validate(address, field: "addressInformation", operation: .update) }
        if let info = update.additionalCustomerInformation {
            try validateAdditionalInformationUpdate(info, field: "additionalCustomerInformation")
        }
        if let answers = update.mfaAnswers { try validateMFAAnswers(answers, field: "mfaAnswers") }
    }
}

/// What an update did: the server's message and the request paths whose change waits for
/// verification (`email`, and fields marked `reverificationRequired` such as `firstName`,
/// `addressInformation.city` or `additionalCustomerInformation.<key>`).
public struct ProfileUpdateResult: Sendable, Equatable {
    public var message: String
    public var pendingVerification: [String]

    public init(message: String, pendingVerification: [String] = []) {
        self.message = message
        self.pendingVerification = pendingVerification
    }
}
