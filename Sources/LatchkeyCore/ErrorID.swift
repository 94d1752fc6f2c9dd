/// The stable identifier of an error: `error.id` on the wire (`"email_in_use"`).
///
/// The server's ids are the `id`s of `ErrorKind`; the SDK adds ids of its own for failures that
/// never reach a server (`transport`, `configuration`, `no_device_token`, …). Compare an error's id
/// with these constants rather than with string literals. The set is open: a newer server may
/// answer an id this version does not name.
public struct ErrorID: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { rawValue }
}

extension ErrorID {
    // Request shape
    public static let invalidField: ErrorID = "invalid_field"
    public static let invalidAppSignature: ErrorID = "invalid_app_signature"
    public static let malformedJSON: ErrorID = "malformed_json"
    public static let invalidRequest: ErrorID = "invalid_request"
    public static let notFound: ErrorID = "not_found"
    public static let invalidOperatorKey: ErrorID = "invalid_operator_key"
    public static let operatorRoleInsufficient: ErrorID = "operator_role_insufficient"
    public static let unknownUser: ErrorID = "unknown_user"
    public static let unknownDevice: ErrorID = "unknown_device"
    public static let unknownSession: ErrorID = "unknown_session"
    public static let unknownOperatorKey: ErrorID = "unknown_operator_key"
    public static let alreadyVerified: ErrorID = "already_verified"
    public static let noEmailAddress: ErrorID = "no_email_address"
    public static let methodNotAllowed: ErrorID = "method_not_allowed"
    public static let payloadTooLarge: ErrorID = "payload_too_large"
    public static let rateLimited: ErrorID = "rate_limited"
    public static let serverError: ErrorID = "server_error"
    public static let notReady: ErrorID = "not_ready"
    /// Too much credential checking queued: retry after `Retry-After` (503).
    public static let overloaded: ErrorID = "overloaded"
    // Logins and sessions
    public static let invalidCredentials: ErrorID = "invalid_credentials"
    public static let notLoggedIn: ErrorID = "not_logged_in"
    // Device binding: RFC 9449's error codes
    public static let invalidDPoPProof: ErrorID = "invalid_dpop_proof"
    public static let useDPoPNonce: ErrorID = "use_dpop_nonce"
    public static let invalidToken: ErrorID = "invalid_token"
    public static let deviceKeyRequired: ErrorID = "device_key_required"
    public static let deviceKeyInUse: ErrorID = "device_key_in_use"
    public static let sealKeyUnknown: ErrorID = "seal_key_unknown"
    public static let sealRequired: ErrorID = "seal_required"
    public static let emailNotVerified: ErrorID = "email_not_verified"
    public static let walletDeactivated: ErrorID = "wallet_deactivated"
    public static let deviceDeactivated: ErrorID = "device_deactivated"
    public static let deviceSuspended: ErrorID = "device_suspended"
    public static let passwordExpired: ErrorID = "password_expired"
    /// A change that needs a recent login (a privileged session): log in again.
    public static let sessionRefreshRequired: ErrorID = "session_refresh_required"
    public static let appInstanceNotVerified: ErrorID = "app_instance_not_verified"
    public static let deviceTokensDisabled: ErrorID = "device_tokens_disabled"
    public static let wrongCredentials: ErrorID = "wrong_credentials"
    public static let deviceTokenExpired: ErrorID = "device_token_expired"
    public static let attemptsInFlight: ErrorID = "attempts_in_flight"
    // Registration, profile and credentials
    public static let emailInUse: ErrorID = "email_in_use"
    public static let confirmationMismatch: ErrorID = "confirmation_mismatch"
    public static let passwordRules: ErrorID = "password_rules"
    public static let passcodeRules: ErrorID = "passcode_rules"
    public static let passwordReused: ErrorID = "password_reused"
    public static let passwordNotExpired: ErrorID = "password_not_expired"
    public static let wrongCurrentCredential: ErrorID = "wrong_current_credential"
    public static let accountLocked: ErrorID = "account_locked"
    public static let unknownEmail: ErrorID = "unknown_email"
    // Second factors (passkeys, authenticator app, recovery codes)
    public static let factorNotOffered: ErrorID = "factor_not_offered"
    public static let factorNotEnrolled: ErrorID = "factor_not_enrolled"
    public static let factorAlreadyEnrolled: ErrorID = "factor_already_enrolled"
    public static let lastFactor: ErrorID = "last_factor"
    public static let passkeyRejected: ErrorID = "passkey_rejected"
    // SSO
    public static let invalidAuthorizationCode: ErrorID = "invalid_authorization_code"
    public static let invalidNonce: ErrorID = "invalid_nonce"
    public static let invalidIDToken: ErrorID = "invalid_id_token"
    public static let noLinkedWallet: ErrorID = "no_linked_wallet"
    public static let mfaAnswersRequired: ErrorID = "mfa_answers_required"
    public static let providerUnavailable: ErrorID = "provider_unavailable"
    public static let providerTimeout: ErrorID = "provider_timeout"
    // Phone sign-up (Kratos-compatible routes)
    public static let selfServiceFlowNotFound: ErrorID = "self_service_flow_not_found"
    public static let selfServiceFlowExpired: ErrorID = "self_service_flow_expired"
    public static let selfServiceFlowUsed: ErrorID = "self_service_flow_used"
    public static let selfServiceFlowTypeMismatch: ErrorID = "self_service_flow_type_mismatch"
    public static let otpNotSent: ErrorID = "otp_not_sent"
    public static let otpAlreadyUsed: ErrorID = "otp_already_used"
    public static let otpExpired: ErrorID = "otp_expired"
    public static let otpAttemptsExhausted: ErrorID = "otp_attempts_exhausted"
    public static let otpInvalid: ErrorID = "otp_invalid"
    public static let sessionInactive: ErrorID = "session_inactive"
    public static let sessionNotFound: ErrorID = "session_not_found"
    public static let tooManyRequests: ErrorID = "too_many_requests"
    // The SDK's own (never answered by a server)
    public static let transport: ErrorID = "transport"
    public static let configuration: ErrorID = "configuration"
    public static let unexpectedAnswer: ErrorID = "unexpected_answer"
    public static let noDeviceToken: ErrorID = "no_device_token"
    public static let deviceKey: ErrorID = "device_key"
    /// The SDK's credential storage (Keychain) failed.
    public static let storage: ErrorID = "storage"
}
