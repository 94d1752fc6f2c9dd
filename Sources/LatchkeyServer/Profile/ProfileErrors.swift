import LatchkeyCore

/// The refusals of credential changes, with the codes the spec documents.
extension DomainError {
    static let accountLocked = DomainError(code: .accountLocked, id: "account_locked",
                                           message: "The call cannot be completed because the account is locked.")
    static let passwordReused = DomainError(code: .passwordReused, id: "password_reused",
                                            message: "The new password was used recently; choose another one.")
    static let unknownEmail = DomainError(code: .unknownEmail, id: "unknown_email",
                                          message: "The email address does not match that of any registered wallet.",
                                          field: "email")
    static func wrongCurrent(_ what: String) -> DomainError {
        DomainError(code: .wrongCurrentCredential, id: "wrong_current_credential",
                    message: "The current \(what) is not correct.")
    }
}
