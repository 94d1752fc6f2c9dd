import LatchkeyCore

/// The refusals of the authentication module (messages: the catalogue's, `ErrorKind`).
extension DomainError {
    static let wrongCredentials = DomainError(.wrongCredentials)
    static let notLoggedIn = DomainError(.notLoggedIn)
    static let emailNotVerified = DomainError(.emailNotVerified)
    static let walletDeactivated = DomainError(.walletDeactivated)
    static let deviceDeactivated = DomainError(.deviceDeactivated)
    static let deviceSuspended = DomainError(.deviceSuspended)
    static let passwordExpired = DomainError(.passwordExpired)
    static let appInstanceNotVerified = DomainError(.appInstanceNotVerified)
    static let deviceTokensDisabled = DomainError(.deviceTokensDisabled)
    static let deviceTokenWalletDeactivated = DomainError(.deviceTokenWalletDeactivated)
    static let deviceTokenWrongCredentials = DomainError(.deviceTokenWrongCredentials)
    static let deviceTokenAlreadyExpired = DomainError(.deviceTokenExpired)
    static let attemptsInFlight = DomainError(.attemptsInFlight)
    static let deviceIDRequired = DomainError.invalidField("X-Device-ID", "X-Device-ID is required to log in.")
}
