import LatchkeyCore

/// The refusals of the authentication module, with the codes the spec documents.
extension DomainError {
    static let wrongCredentials = DomainError(code: .unauthorized, id: "invalid_credentials",
                                              message: "The login credentials are not correct.")
    static let notLoggedIn = DomainError(code: .notLoggedIn, id: "not_logged_in", message: "The user is not logged in.")
    static let emailNotVerified = DomainError(code: .emailNotVerified, id: "email_not_verified",
                                              message: "Email verification is not complete.")
    static let walletDeactivated = DomainError(code: .walletDeactivated, id: "wallet_deactivated",
                                               message: "The wallet is deactivated (consecutive failed attempts or an operator).")
    static let deviceDeactivated = DomainError(code: .deviceDeactivated, id: "device_deactivated",
                                               message: "The device is deactivated (consecutive failed attempts or an operator).")
    static let deviceSuspended = DomainError(code: .deviceSuspended, id: "device_suspended", message: "The device is suspended.")
    static let passwordExpired = DomainError(code: .passwordExpired, id: "password_expired",
                                             message: "The password has expired and must be updated.")
    static let appInstanceNotVerified = DomainError(code: .appInstanceNotVerified, id: "app_instance_not_verified",
                                                    message: "Application instance verification is not complete.")
    static let deviceTokensDisabled = DomainError(code: .deviceTokensDisabled, id: "device_tokens_disabled",
                                                  message: "Device authentication tokens are turned off by the issuer.")
    static let deviceTokenWalletDeactivated = DomainError(code: .mfaRequired, id: "wallet_deactivated",
                                                          message: "The wallet is deactivated.")
    static let deviceTokenWrongCredentials = DomainError(code: .passwordRules, id: "wrong_credentials",
                                                         message: "The username or password is not correct.")
    static let deviceTokenAlreadyExpired = DomainError(code: .notLoggedIn, id: "device_token_expired",
                                                       message: "The device token has already expired.")
    static let attemptsInFlight = DomainError(code: .tooManyRequests, id: "attempts_in_flight",
                                              message: "Too many login attempts are in progress; try again shortly.")
    static let deviceIDRequired = DomainError.invalidField("X-Device-ID", "X-Device-ID is required to log in.")
}
