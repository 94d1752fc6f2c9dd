import LatchkeyCore

/// The refusals of credential changes (messages: the catalogue's, `ErrorKind`).
extension DomainError {
    package static let accountLocked = DomainError(.accountLocked)
    package static let passwordReused = DomainError(.passwordReused)
    package static let unknownEmail = DomainError(.unknownEmail, field: "email")
    package static func wrongCurrent(_ what: String) -> DomainError {
        DomainError(.wrongCurrentCredential, message: "The current \(what) is not correct.")
    }
}
