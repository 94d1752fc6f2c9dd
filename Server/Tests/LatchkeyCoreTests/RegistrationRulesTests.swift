import LatchkeyCore
import Testing

@Suite struct RegistrationRulesTests {
    static let questions = [MFAQuestionWithMetadata(mfaQuestion: "Pet?", isMandatory: true),
                            MFAQuestionWithMetadata(mfaQuestion: "City?"), MFAQuestionWithMetadata(mfaQuestion: "Car?"),
                            MFAQuestionWithMetadata(mfaQuestion: "School?")]
    let rules = EnrollmentRules(mfa: MFAQuestions(numberOfRequiredQuestions: 2, questions: Self.questions))

    func valid() -> UserProfile {
        UserProfile(firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", password: "correct-horse",
                    confirmPassword: "correct-horse", passcode: "314159", confirmPasscode: "314159",
                    mfaAnswers: ["Pet?": "Rex", "City?": "London"])
    }

    func failure(_ change: (inout UserProfile) -> Void) -> DomainError? {
        var profile = valid()
        change(&profile)
        do {
            try rules.validateRegistration(profile)
            return nil
        } catch { return error }
    }

    @Test func validProfilePasses() throws {
        try rules.validateRegistration(valid())
    }

    @Test func eachFieldProblemNamesItsField() {
        let cases: [(String, StatusCode, (inout UserProfile) -> Void)] = [
            ("userProfile.firstName", 400, { $0.firstName = nil }),
            ("userProfile.lastName", 400, { $0.lastName = String(repeating: "x", count: 51) }),
            ("userProfile.email", 400, { $0.email = "not-an-email" }),
            ("userProfile.email", 400, { $0.email = nil }),
            ("userProfile.email", 400, { $0.email = String(repeating: "a", count: 45) + "@x.com" }),
            ("userProfile.phone", 400, { $0.phone = "+15555550100" }),
            ("userProfile.addressInformation.zipCode", 400, { $0.addressInformation = AddressInformation(zipCode: "123456") }),
            ("userProfile.addressInformation.zipCode", 400, { $0.addressInformation = AddressInformation(zipCode: "12a45") }),
            ("userProfile.confirmPassword", 400, { $0.confirmPassword = "different-one" }),
            ("userProfile.confirmPasscode", 400, { $0.confirmPasscode = "271828" }),
            ("userProfile.mfaAnswers", 400, { $0.mfaAnswers = ["Pet?": "Rex"] }),
            ("userProfile.mfaAnswers", 400, { $0.mfaAnswers = ["Pet?": "Rex", "City?": "L", "Car?": "VW"] }),
            ("userProfile.mfaAnswers", 400, { $0.mfaAnswers = ["Pet?": "Rex", "Unknown?": "x"] }),
            ("userProfile.mfaAnswers", 400, { $0.mfaAnswers = ["City?": "London", "Car?": "VW"] }),
            ("userProfile.mfaAnswers", 400, { $0.mfaAnswers = ["Pet?": " ", "City?": "London"] }),
            ("userProfile.password", 419, { $0.password = "short"; $0.confirmPassword = "short" }),
            ("userProfile.passcode", 420, { $0.passcode = "111111"; $0.confirmPasscode = "111111" }),
            ("userProfile.passcode", 420, { $0.passcode = "123456"; $0.confirmPasscode = "123456" }),
        ]
        for (field, code, change) in cases {
            let error = failure(change)
            #expect(error?.field == field, "expected \(field), got \(String(describing: error))")
            #expect(error?.code == code, "expected \(code) for \(field), got \(String(describing: error))")
        }
    }

    @Test func metadataRules() throws {
        let zip = try #require(ProfileMetadata.field("ZIP_CODE", in: ProfileMetadata.default.addressInformation))
        #expect(zip.maxLength == 5)
        try zip.validate("12345", field: "zip", operation: .create)
        let phone = try #require(ProfileMetadata.field("MOBILE_NUMBER", in: ProfileMetadata.default.userProfile))
        #expect(throws: DomainError.self) { try phone.validate("+1555", field: "phone", operation: .update) }
        try phone.validate(nil, field: "phone", operation: .create)
        let required = FieldMetadata(key: "K", name: "K", required: true, minLength: 2, maxLength: 4, order: 1)
        #expect(throws: DomainError.self) { try required.validate(nil, field: "k", operation: .create) }
        #expect(throws: DomainError.self) { try required.validate("a", field: "k", operation: .create) }
        #expect(throws: DomainError.self) { try required.validate("abcde", field: "k", operation: .create) }
        try required.validate(nil, field: "k", operation: .update)
        try required.validate("abc", field: "k", operation: .update)
    }
}
