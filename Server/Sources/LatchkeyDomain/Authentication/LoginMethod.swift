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

    /// Whether the login checked something the user knows (password, PIN or MFA answer): only
    /// such a login makes its session privileged for `issuer.sessions.privilegedSeconds`.
    /// Possession (a device token, the registration nonce) and an outside provider's login are not
    /// one, so a stolen phone with its token, or a provider session, cannot take the account over.
    public var checksKnowledgeFactor: Bool {
        switch self {
        case .password, .passwordPhone, .pin, .mfa, .totp, .recoveryCode, .passkey: true
        case .nonce, .deviceToken, .sso: false
        }
    }
}
