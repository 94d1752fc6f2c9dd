import LatchkeyCore

/// The refusals of the authentication module (messages: the catalogue's, `ErrorKind`).
extension DomainError {
    package static let wrongCredentials = DomainError(.wrongCredentials)
    package static let notLoggedIn = DomainError(.notLoggedIn)
    package static let emailNotVerified = DomainError(.emailNotVerified)
    package static let walletDeactivated = DomainError(.walletDeactivated)
    package static let deviceDeactivated = DomainError(.deviceDeactivated)
    package static let deviceSuspended = DomainError(.deviceSuspended)
    package static let passwordExpired = DomainError(.passwordExpired)
    package static let appInstanceNotVerified = DomainError(.appInstanceNotVerified)
    package static let deviceTokensDisabled = DomainError(.deviceTokensDisabled)
    package static let deviceTokenWalletDeactivated = DomainError(.deviceTokenWalletDeactivated)
    package static let deviceTokenWrongCredentials = DomainError(.deviceTokenWrongCredentials)
    package static let deviceTokenAlreadyExpired = DomainError(.deviceTokenExpired)
    package static let attemptsInFlight = DomainError(.attemptsInFlight)
    package static let deviceIDRequired = DomainError.invalidField("X-Device-ID", "X-Device-ID is required to log in.")
}
