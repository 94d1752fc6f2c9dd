/// The error catalogue: every error the server can answer, each with its wire id, the code the
/// spec documents for it, the HTTP status it travels with and a default message.
///
/// Errors that share a spec code are distinct cases (`emailInUse` and `wrongCurrentCredential` are
/// both 416, answered 409 and 403). A few wire ids repeat where the spec gives one condition two
/// codes on two calls (`wallet_deactivated` is 421 on logins, 412 on device-token login); the pair
/// of id and code is unique. The server renders every error from this table; `docs/api.md` lists it
/// and a test holds the two together.
public enum ErrorKind: String, CaseIterable, Sendable {
    // Shared by every route
    case invalidField, invalidAppSignature, malformedJSON, invalidRequest, notFound, methodNotAllowed, payloadTooLarge
    case rateLimited, serverError, notReady, overloaded
    // Logins and sessions
    case wrongCredentials, notLoggedIn, deviceTokenExpired, deviceTokenWalletDeactivated, emailNotVerified
    case deviceTokenWrongCredentials, walletDeactivated, deviceDeactivated, attemptsInFlight, deviceTokensDisabled
    case deviceSuspended, passwordExpired, appInstanceNotVerified, sessionRefreshRequired
    // Device binding (DPoP, RFC 9449)
    case invalidDPoPProof, useDPoPNonce, boundTokenWithoutProof, deviceKeyRequired, deviceKeyInUse
    // Sealed credentials (encryptionSettings)
    case sealKeyUnknown, sealRequired
    // Registration, profile and credentials
    case emailInUse, wrongCurrentCredential, confirmationMismatch, passwordReused, passwordNotExpired, accountLocked
    case passwordRules, passcodeRules, unknownEmail
    // Second factors
    case factorNotOffered, factorNotEnrolled, factorAlreadyEnrolled, lastFactor, passkeyRejected
    // SSO
    case invalidAuthorizationCode, invalidNonce, invalidIDToken, noLinkedWallet
    case ssoPasscodeRules, mfaAnswersRequired, providerUnavailable, providerTimeout
    // Phone sign-up, in Ory Kratos's terms (the spec code is the HTTP status)
    case flowNotFound, flowExpired, flowUsed, flowTypeMismatch, otpNotSent, otpAlreadyUsed, otpExpired
    case otpAttemptsExhausted, otpInvalid, sessionInactive, sessionNotFound, flowTooManyRequests
    // The admin API (operators' keys)
    case operatorKeyInvalid, operatorRoleInsufficient, unknownUser, unknownDevice, unknownSession, unknownOperatorKey, alreadyVerified, noEmailAddress

    /// One row of the catalogue.
    public struct Entry: Sendable, Equatable {
        public let id: ErrorID
        public let code: StatusCode
        public let httpStatus: Int
        public let message: String
    }

    /// The wire id.
    public var id: ErrorID { entry.id }
    /// The code the spec documents (the body's `code`).
    public var code: StatusCode { entry.code }
    /// The HTTP status the error is answered with.
    public var httpStatus: Int { entry.httpStatus }
    /// The message when the thrower gives none.
    public var defaultMessage: String { entry.message }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    public var entry: Entry {
        switch self {
        case .invalidField: Entry(id: .invalidField, code: 400, httpStatus: 400, message: "A field is missing or invalid.")
        case .sealRequired:
            Entry(id: .sealRequired, code: 400, httpStatus: 400,
                  message: "This value must be sealed (the issuer's encryption settings): read them again.")
        case .sealKeyUnknown:
            Entry(id: .sealKeyUnknown, code: 400, httpStatus: 400,
                  message: "The sealed value names a key this server does not hold (retired or unknown): read the encryption settings again.")
        case .invalidAppSignature:
            Entry(id: .invalidAppSignature, code: 400, httpStatus: 401, message: "X-Application-Signature must be the app's 36-character UUID.")
        case .malformedJSON: Entry(id: .malformedJSON, code: 400, httpStatus: 400, message: "The request body is not valid JSON.")
        case .invalidRequest: Entry(id: .invalidRequest, code: 400, httpStatus: 400, message: "The request is not valid.")
        case .notFound: Entry(id: .notFound, code: 404, httpStatus: 404, message: "There is no such route.")
        case .operatorKeyInvalid:
            Entry(id: .invalidOperatorKey, code: 401, httpStatus: 401, message: "The operator key is missing, unknown, revoked or expired.")
        case .operatorRoleInsufficient:
            Entry(id: .operatorRoleInsufficient, code: 403, httpStatus: 403, message: "The operator key's role does not allow this call.")
        case .unknownUser: Entry(id: .unknownUser, code: 404, httpStatus: 404, message: "There is no such user.")
        case .unknownDevice: Entry(id: .unknownDevice, code: 404, httpStatus: 404, message: "The user has no such device.")
        case .unknownSession: Entry(id: .unknownSession, code: 404, httpStatus: 404, message: "The user has no such live session.")
        case .unknownOperatorKey:
            Entry(id: .unknownOperatorKey, code: 404, httpStatus: 404, message: "There is no such operator key that is not revoked.")
        case .alreadyVerified:
            Entry(id: .alreadyVerified, code: 409, httpStatus: 409, message: "The user's email address is already verified.")
        case .noEmailAddress:
            Entry(id: .noEmailAddress, code: 409, httpStatus: 409, message: "The user has no email address (a phone sign-up).")
        case .methodNotAllowed: Entry(id: .methodNotAllowed, code: 405, httpStatus: 405, message: "The method is not allowed on this route.")
        case .payloadTooLarge: Entry(id: .payloadTooLarge, code: 413, httpStatus: 413, message: "The request body is too large.")
        case .rateLimited: Entry(id: .rateLimited, code: 429, httpStatus: 429, message: "Too many requests; try again in a minute.")
        case .serverError: Entry(id: .serverError, code: 500, httpStatus: 500, message: "An unknown error occurred internally in the server.")
        case .notReady: Entry(id: .notReady, code: 503, httpStatus: 503, message: "The database is not reachable.")
        case .overloaded: Entry(id: .overloaded, code: 503, httpStatus: 503,
                                message: "The server is busy checking credentials; try again after the Retry-After delay.")

        case .wrongCredentials: Entry(id: .invalidCredentials, code: 401, httpStatus: 401, message: "The login credentials are not correct.")
        case .invalidDPoPProof:
            Entry(id: .invalidDPoPProof, code: 401, httpStatus: 401, message: "The DPoP proof is not valid for this request.")
        case .useDPoPNonce:
            Entry(id: .useDPoPNonce, code: 401, httpStatus: 401, message: "Sign the proof again with the nonce in the DPoP-Nonce header.")
        case .boundTokenWithoutProof:
            Entry(id: .invalidToken, code: 401, httpStatus: 401,
                  message: "The token is bound to a device key: send it as Authorization: DPoP with a proof by that key.")
        case .deviceKeyRequired:
            Entry(id: .deviceKeyRequired, code: 401, httpStatus: 401,
                  message: "This session is not bound to a registered device key: register the key (PUT /identity/pki/client/certificates) or log in with a DPoP proof.")
        case .deviceKeyInUse:
            Entry(id: .deviceKeyInUse, code: 409, httpStatus: 409,
                  message: "This device key is linked to another wallet; a device key belongs to one wallet.")
        case .notLoggedIn: Entry(id: .notLoggedIn, code: 403, httpStatus: 401, message: "The user is not logged in.")
        case .deviceTokenExpired: Entry(id: .deviceTokenExpired, code: 403, httpStatus: 401, message: "The device token has already expired.")
        case .deviceTokenWalletDeactivated: Entry(id: .walletDeactivated, code: 412, httpStatus: 403, message: "The wallet is deactivated.")
        case .emailNotVerified: Entry(id: .emailNotVerified, code: 418, httpStatus: 403, message: "Email verification is not complete.")
        case .deviceTokenWrongCredentials:
            Entry(id: .wrongCredentials, code: 419, httpStatus: 401, message: "The username or password is not correct.")
        case .walletDeactivated:
            Entry(id: .walletDeactivated, code: 421, httpStatus: 423,
                  message: "The wallet is deactivated (consecutive failed attempts or an operator).")
        case .deviceDeactivated:
            Entry(id: .deviceDeactivated, code: 423, httpStatus: 423,
                  message: "The device is deactivated (consecutive failed attempts or an operator).")
        case .attemptsInFlight:
            Entry(id: .attemptsInFlight, code: 429, httpStatus: 429, message: "Too many login attempts are in progress; try again shortly.")
        case .deviceTokensDisabled:
            Entry(id: .deviceTokensDisabled, code: 432, httpStatus: 403, message: "Device authentication tokens are turned off by the issuer.")
        case .deviceSuspended: Entry(id: .deviceSuspended, code: 503, httpStatus: 403, message: "The device is suspended.")
        case .sessionRefreshRequired:
            Entry(id: .sessionRefreshRequired, code: 403, httpStatus: 403,
                  message: "This change needs a recent login: log in again, then repeat it.")
        case .passwordExpired: Entry(id: .passwordExpired, code: 508, httpStatus: 403, message: "The password has expired and must be updated.")
        case .appInstanceNotVerified:
            Entry(id: .appInstanceNotVerified, code: 511, httpStatus: 403, message: "Application instance verification is not complete.")

        case .emailInUse: Entry(id: .emailInUse, code: 416, httpStatus: 409, message: "The email address is already in use by an existing wallet.")
        case .wrongCurrentCredential:
            Entry(id: .wrongCurrentCredential, code: 416, httpStatus: 403, message: "The current credential is not correct.")
        case .confirmationMismatch:
            Entry(id: .confirmationMismatch, code: 417, httpStatus: 400, message: "The new value and its confirmation differ.")
        case .passwordReused:
            Entry(id: .passwordReused, code: 406, httpStatus: 422, message: "The new password was used recently; choose another one.")
        case .accountLocked:
            Entry(id: .accountLocked, code: 424, httpStatus: 423, message: "The call cannot be completed because the account is locked.")
        case .passwordNotExpired:
            Entry(id: .passwordNotExpired, code: 400, httpStatus: 400,
                  message: "The password has not expired: change it with updateUserPassword while logged in.")
        case .passwordRules: Entry(id: .passwordRules, code: 419, httpStatus: 422, message: "The password does not meet the issuer's rules.")
        case .passcodeRules: Entry(id: .passcodeRules, code: 420, httpStatus: 422, message: "The passcode does not meet the issuer's rules.")
        case .unknownEmail:
            Entry(id: .unknownEmail, code: 410, httpStatus: 404, message: "The email address does not match that of any registered wallet.")

        case .invalidAuthorizationCode:
            Entry(id: .invalidAuthorizationCode, code: 401, httpStatus: 401, message: "Access denied; invalid authorization code.")
        case .invalidNonce: Entry(id: .invalidNonce, code: 401, httpStatus: 401, message: "Access denied; invalid nonce.")
        case .invalidIDToken: Entry(id: .invalidIDToken, code: 401, httpStatus: 401, message: "Access denied; invalid ID token.")
        case .noLinkedWallet:
            Entry(id: .noLinkedWallet, code: 401, httpStatus: 401, message: "No wallet is linked to this identity; register first.")
        case .ssoPasscodeRules: Entry(id: .passcodeRules, code: 408, httpStatus: 422, message: "The passcode does not meet the issuer's rules.")
        case .mfaAnswersRequired: Entry(id: .mfaAnswersRequired, code: 410, httpStatus: 422, message: "MFA response is required.")
        case .providerUnavailable:
            Entry(id: .providerUnavailable, code: 500, httpStatus: 502, message: "The identity provider cannot be reached right now. Try again later.")
        case .providerTimeout:
            Entry(id: .providerTimeout, code: 500, httpStatus: 504, message: "The identity provider did not answer in time. Try again later.")

        case .factorNotOffered:
            Entry(id: .factorNotOffered, code: 404, httpStatus: 404, message: "The issuer does not offer this factor.")
        case .factorNotEnrolled:
            Entry(id: .factorNotEnrolled, code: 404, httpStatus: 404, message: "The wallet has no such factor.")
        case .factorAlreadyEnrolled:
            Entry(id: .factorAlreadyEnrolled, code: 409, httpStatus: 409, message: "The wallet already has this factor.")
        case .lastFactor:
            Entry(id: .lastFactor, code: 409, httpStatus: 409,
                  message: "This is the wallet's last factor that can link a new phone, and the issuer requires one: enrol another first.")
        case .passkeyRejected:
            Entry(id: .passkeyRejected, code: 400, httpStatus: 400, message: "The passkey's response could not be verified.")

        case .flowNotFound: Entry(id: .selfServiceFlowNotFound, code: 404, httpStatus: 404, message: "The flow does not exist. Start a new one.")
        case .flowExpired: Entry(id: .selfServiceFlowExpired, code: 410, httpStatus: 410, message: "The flow expired. Start a new one.")
        case .flowUsed: Entry(id: .selfServiceFlowUsed, code: 410, httpStatus: 410, message: "The flow was already completed. Start a new one.")
        case .flowTypeMismatch:
            Entry(id: .selfServiceFlowTypeMismatch, code: 400, httpStatus: 400, message: "The flow is of another kind than this call needs.")
        case .otpNotSent: Entry(id: .otpNotSent, code: 400, httpStatus: 400, message: "No code was sent for this flow yet.")
        case .otpAlreadyUsed:
            Entry(id: .otpAlreadyUsed, code: 409, httpStatus: 409, message: "The phone is already verified for this flow; finish the sign-up.")
        case .otpExpired: Entry(id: .otpExpired, code: 410, httpStatus: 410, message: "The code expired. Ask for a new one.")
        case .otpAttemptsExhausted:
            Entry(id: .otpAttemptsExhausted, code: 403, httpStatus: 403, message: "Too many wrong codes for this flow. Start a new sign-up.")
        case .otpInvalid: Entry(id: .otpInvalid, code: 400, httpStatus: 400, message: "The code is not correct.")
        case .sessionInactive:
            Entry(id: .sessionInactive, code: 401, httpStatus: 401, message: "No valid session credentials found in the request.")
        case .sessionNotFound: Entry(id: .sessionNotFound, code: 403, httpStatus: 403, message: "The session token is unknown.")
        case .flowTooManyRequests: Entry(id: .tooManyRequests, code: 429, httpStatus: 429, message: "Too many requests.")
        }
    }
}
