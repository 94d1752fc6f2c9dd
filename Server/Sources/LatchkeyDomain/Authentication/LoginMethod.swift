/// How a session was opened: named in the audit trail (`login.succeeded`'s `method`), and what
/// decides whether the session is privileged for a while (`SessionRecord.factorCheckedAt`).
public enum LoginMethod: String, Sendable {
    case password
    /// Kratos's phone-and-password login of a phone sign-up identity.
    case passwordPhone = "password_phone"
    case pin
    /// The registration nonce: possession of the registering app instance.
    case nonce
    /// An MFA answer (after a password login from an unlinked device).
    case mfa
    /// An authenticator app's code answering the MFA prompt.
    case totp
    /// A recovery code answering the MFA prompt.
    case recoveryCode = "recovery_code"
    /// A passkey: a discoverable login, or the answer to the MFA prompt.
    case passkey
    /// The long-lived device token: possession of the phone and its token.
    case deviceToken = "device_token"
    /// A federated (OpenID Connect) login: the provider authenticated the user.
    case sso

    /// The factor the login checked, for the issuer's step-up rule (`FactorRules.privileged`):
    /// the password, the PIN, or the factor that answered the MFA prompt. A login after the prompt
    /// counts only the prompt's factor: the step before the prompt may have been a password, the
    /// registration nonce or an outside provider, and the challenge does not record which.
    /// Possession (a device token, the registration nonce) and an outside provider's login check
    /// none, so a stolen phone with its token, or a provider session, cannot take the account over.
    public var checkedFactor: StepUpFactor? {
        switch self {
        case .password, .passwordPhone: .password
        case .pin: .pin
        case .mfa: .question
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        case .passkey: .passkey
        case .nonce, .deviceToken, .sso: nil
        }
    }
}
