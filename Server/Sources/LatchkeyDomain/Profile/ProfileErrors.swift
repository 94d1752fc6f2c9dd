import LatchkeyCore

/// The refusals of credential changes (messages: the catalogue's, `ErrorKind`).
extension DomainError {
    package static let accountLocked = DomainError(.accountLocked)
    package static let passwordReused = DomainError(.passwordReused)
    package static let unknownEmail = DomainError(.unknownEmail, field: "email")
    package static let wrongCurrentPassword = DomainError(.wrongCurrentCredential, message: "The current password is not correct.")
    package static let wrongCurrentPIN = DomainError(.wrongCurrentCredential, message: "The current PIN is not correct.")
}
