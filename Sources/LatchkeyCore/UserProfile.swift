/// The postal address of a wallet owner (`PDAddressInformation`).
public struct AddressInformation: Codable, Sendable, Hashable {
    public var state: String?
    public var country: String?
    public var addressLine1: String?
    public var addressLine2: String?
    public var city: String?
    public var zipCode: String?

    public init(state: String? = nil, country: String? = nil, addressLine1: String? = nil,
                addressLine2: String? = nil, city: String? = nil, zipCode: String? = nil) {
        self.state = state
        self.country = country
        self.addressLine1 = addressLine1
        self.addressLine2 = addressLine2
        self.city = city
        self.zipCode = zipCode
    }
}

/// How a wallet owner can be contacted (`PDContactInformation`).
public struct ContactInformation: Codable, Sendable, Hashable {
    public var email: String?
    public var phone: String?
    public var addressInformation: AddressInformation?

    public init(email: String? = nil, phone: String? = nil, addressInformation: AddressInformation? = nil) {
        self.email = email
        self.phone = phone
        self.addressInformation = addressInformation
    }
}

/// The profile a user registers with or updates (`PDUserProfile`).
///
/// `mfaAnswers` maps each question to its answer (DESIGN §4). `addressInformation` is Latchkey's
/// addition, so the address fields whose metadata allows creation can be given at registration.
public struct UserProfile: Codable, Sendable, Hashable {
    public var firstName: String?
    public var lastName: String?
    public var email: String?
    public var password: String?
    public var confirmPassword: String?
    public var passcode: String?
    public var confirmPasscode: String?
    public var mfaAnswers: [String: String]?
    public var phone: String?
    public var additionalCustomerInformation: [String: String]?
    public var externalId: String?
    public var addressInformation: AddressInformation?

    public init(firstName: String? = nil, lastName: String? = nil, email: String? = nil,
                password: String? = nil, confirmPassword: String? = nil, passcode: String? = nil,
                confirmPasscode: String? = nil, mfaAnswers: [String: String]? = nil, phone: String? = nil,
                additionalCustomerInformation: [String: String]? = nil, externalId: String? = nil,
                addressInformation: AddressInformation? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.password = password
        self.confirmPassword = confirmPassword
        self.passcode = passcode
        self.confirmPasscode = confirmPasscode
        self.mfaAnswers = mfaAnswers
        self.phone = phone
        self.additionalCustomerInformation = additionalCustomerInformation
        self.externalId = externalId
        self.addressInformation = addressInformation
    }
}

/// A question of the issuer's MFA pool (`PDMFAQuestionWithMetadata`).
public struct MFAQuestionWithMetadata: Codable, Sendable, Hashable {
    public var mfaQuestion: String
    public var isMandatory: Bool
    public var isNewQuestion: Bool

    public init(mfaQuestion: String, isMandatory: Bool = false, isNewQuestion: Bool = true) {
        self.mfaQuestion = mfaQuestion
        self.isMandatory = isMandatory
        self.isNewQuestion = isNewQuestion
    }
}

/// The issuer's MFA pool and requirement (`PDRetrieveMFAQuestionsWithMetadataResponse`).
public struct MFAQuestions: Codable, Sendable, Hashable {
    public var mfaQuestions: [String]
    public var numberOfRequiredQuestions: Int
    public var mfaQuestionsWithMetadata: [MFAQuestionWithMetadata]

    public init(numberOfRequiredQuestions: Int, questions: [MFAQuestionWithMetadata]) {
        self.mfaQuestions = questions.map(\.mfaQuestion)
        self.numberOfRequiredQuestions = numberOfRequiredQuestions
        self.mfaQuestionsWithMetadata = questions
    }
}

/// The result of a registration (`PDRegisterUserResponse`).
public struct RegisterUserResponse: Codable, Sendable, Hashable {
    public var nonce: String
    public var customerUri: String
    public var message: String

    public init(nonce: String, customerUri: String, message: String) {
        self.nonce = nonce
        self.customerUri = customerUri
        self.message = message
    }
}
