/// The error domain of a call, the key under which the app configures its messages.
public struct ErrorDomain: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let fetchMfaQuestionsWithMetadata = ErrorDomain(rawValue: "kUserErrorFetchMfaQuestionsWithMetadataDomain")
    public static let retrievePasswordConfigs = ErrorDomain(rawValue: "kUserErrorRetrievePasswordConfigsDomain")
    public static let retrievePasscodeConfigs = ErrorDomain(rawValue: "kUserErrorRetrievePasscodeConfigsDomain")
    public static let retrieveProfileMetadata = ErrorDomain(rawValue: "kUserErrorRetrieveProfileMetadataDomain")
    public static let registerNewUser = ErrorDomain(rawValue: "kUserErrorRegisterNewUserDomain")
    /// Errors that belong to no call: configuration of the SDK itself.
    public static let configuration = ErrorDomain(rawValue: "kLatchkeyConfigurationDomain")
}
