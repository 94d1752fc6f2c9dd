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
    public static let loginWithUsernamePassword = ErrorDomain(rawValue: "kUserErrorLoginWithUsernamePasswordDomain")
    public static let loginWithPin = ErrorDomain(rawValue: "kUserErrorLoginWithPinDomain")
    public static let loginWithNonce = ErrorDomain(rawValue: "kUserErrorLoginWithNonceDomain")
    public static let generateDeviceAuthenticationToken = ErrorDomain(rawValue: "kUserErrorGenerateDeviceAuthenticationTokenDomain")
    public static let loginWithDeviceAuthenticationToken = ErrorDomain(rawValue: "kUserErrorLoginWithDeviceAuthenticationTokenDomain")
    public static let expireDeviceAuthenticationToken = ErrorDomain(rawValue: "kUserErrorExpireDeviceAuthenticationTokenDomain")
    public static let logout = ErrorDomain(rawValue: "kUserErrorLogoutDomain")
    public static let updateUserProfile = ErrorDomain(rawValue: "kUserErrorUpdateUserProfileDomain")
    public static let updateUserCredentials = ErrorDomain(rawValue: "kUserErrorUpdateUserCredentialsDomain")
    public static let updateUserPasscode = ErrorDomain(rawValue: "kUserErrorUpdateUserPasscodeDomain")
    public static let updateMfaAnswers = ErrorDomain(rawValue: "kUserErrorUpdateMfaAnswersDomain")
    public static let changePassword = ErrorDomain(rawValue: "kUserErrorChangePasswordDomain")
    /// `resendVerificationEmail` (the spec names no key; Latchkey's).
    public static let retrieveCustomerProfileMetaData = ErrorDomain(rawValue: "kUserErrorRetrieveCustomerProfileMetaDataDomain")
    public static let registerCustomer = ErrorDomain(rawValue: "kUserErrorRegisterCustomerDomain")
    public static let loginWithFederatedIdentity = ErrorDomain(rawValue: "kUserErrorLoginWithFederatedIdentityDomain")
    public static let startSignupFlow = ErrorDomain(rawValue: "kUserErrorStartSignupFlowDomain")
    public static let verifyPhoneNumber = ErrorDomain(rawValue: "kUserErrorVerifyPhoneNumberDomain")
    public static let finishSignupFlow = ErrorDomain(rawValue: "kUserErrorFinishSignupFlowDomain")
    public static let resetForgottenCredentials = ErrorDomain(rawValue: "kUserErrorResetForgottenCredentialsDomain")
    public static let resendVerificationEmail = ErrorDomain(rawValue: "kUserErrorResendVerificationEmailDomain")
    /// Reading the customer record (Latchkey's).
    public static let retrieveCustomer = ErrorDomain(rawValue: "kUserErrorRetrieveCustomerDomain")
    /// Reading the current session (Latchkey's addition).
    public static let session = ErrorDomain(rawValue: "kLatchkeySessionDomain")
    /// Listing and unlinking the wallet's devices (Latchkey's additions).
    public static let devices = ErrorDomain(rawValue: "kLatchkeyDevicesDomain")
    /// The wallet's second factors: their rules, passkeys, the authenticator app, recovery codes (Latchkey's).
    public static let factors = ErrorDomain(rawValue: "kLatchkeyFactorsDomain")
    /// `loginWithPasskey` and its options (Latchkey's).
    public static let loginWithPasskey = ErrorDomain(rawValue: "kLatchkeyLoginWithPasskeyDomain")
    /// Errors that belong to no call: configuration of the SDK itself.
    public static let configuration = ErrorDomain(rawValue: "kLatchkeyConfigurationDomain")
}
