import LatchkeyCore

/// The refusals of credential changes (messages: the catalogue's, `ErrorKind`).
extension DomainError {
    static let accountLocked = DomainError(.accountLocked)
    static let passwordReused = DomainError(.passwordReused)
    static let unknownEmail = DomainError(.unknownEmail, field: "email")
    static func wrongCurrent(_ what: String) -> DomainError {
        DomainError(.wrongCurrentCredential, message: "The current \(what) is not correct.")
    }
}
