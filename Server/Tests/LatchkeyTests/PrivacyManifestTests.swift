import Foundation
import LatchkeyCore
import Testing

/// The SDK's privacy manifest (`Sources/Latchkey/PrivacyInfo.xcprivacy`), which an app's archive
/// aggregates into its privacy report, declares every kind of data the SDK sends to the issuer.
@Suite struct PrivacyManifestTests {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Latchkey/PrivacyInfo.xcprivacy")

    /// What each field of the profile the SDK sends (registration, profile updates) is in Apple's
    /// categories; `nil` for credentials, which are no collected data type, and for the issuer's
    /// own keys. A field added to `UserProfile` without an entry here fails the test.
    static let profileFields: [String: String?] = [
        "firstName": "NSPrivacyCollectedDataTypeName", "lastName": "NSPrivacyCollectedDataTypeName",
        "email": "NSPrivacyCollectedDataTypeEmailAddress", "phone": "NSPrivacyCollectedDataTypePhoneNumber",
        "addressInformation": "NSPrivacyCollectedDataTypePhysicalAddress", "externalId": "NSPrivacyCollectedDataTypeUserID",
        "password": nil, "confirmPassword": nil, "passcode": nil, "confirmPasscode": nil, "mfaAnswers": nil,
        "additionalCustomerInformation": nil,
    ]

    @Test func everyKindOfDataTheSDKSendsIsDeclared() throws {
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: Self.manifest), format: nil)
        let entries = try #require((plist as? [String: Any])?["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        var declared: [String: [String: Any]] = [:]
        for entry in entries { declared[try #require(entry["NSPrivacyCollectedDataType"] as? String)] = entry }

        let fields = Mirror(reflecting: UserProfile()).children.compactMap(\.label)
        #expect(Set(fields) == Set(Self.profileFields.keys), "a profile field without a privacy category")
        let needed = Set(Self.profileFields.values.compactMap { $0 })
            .union(["NSPrivacyCollectedDataTypeDeviceID", "NSPrivacyCollectedDataTypePerformanceData"])
        for type in needed.sorted() {
            let entry = try #require(declared[type], "\(type) is not declared")
            #expect(entry["NSPrivacyCollectedDataTypeLinked"] as? Bool == true, "\(type)")
            #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false, "\(type)")
            #expect((entry["NSPrivacyCollectedDataTypePurposes"] as? [String])?.isEmpty == false, "\(type)")
        }
    }
}
