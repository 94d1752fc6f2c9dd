/// A status code documented by the spec for a call and condition (400, 416, 419, 420, …).
///
/// The set is open: a server may answer a code this version of the library does not name.
public struct StatusCode: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(integerLiteral value: Int) { self.rawValue = value }
    public init(from decoder: any Decoder) throws { self.rawValue = try decoder.singleValueContainer().decode(Int.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
    public var description: String { String(rawValue) }

    /// One or more parameters in the request is not valid.
    public static let invalidParameter: StatusCode = 400
    /// Access denied: wrong credentials, an unknown or used nonce or token.
    public static let unauthorized: StatusCode = 401
    /// The user is not logged in.
    public static let notLoggedIn: StatusCode = 403
    /// The requested route or object does not exist.
    public static let notFound: StatusCode = 404
    /// The method is not allowed on this route.
    public static let methodNotAllowed: StatusCode = 405
    /// The request body is larger than the server accepts.
    public static let payloadTooLarge: StatusCode = 413
    /// The MFA prompt of a login from an unlinked device (a successful outcome, not an error);
    /// device-token login also answers it for a deactivated wallet, as the spec documents.
    public static let mfaRequired: StatusCode = 412
    /// The new password was used recently (password history).
    public static let passwordReused: StatusCode = 406
    /// For credential changes: the current password or PIN given is not correct (the same number
    /// as `emailInUse`; the call tells which).
    public static let wrongCurrentCredential: StatusCode = 416
    /// The new value and its confirmation differ.
    public static let confirmationMismatch: StatusCode = 417
    /// The email address is already used by another wallet.
    public static let emailInUse: StatusCode = 416
    /// The password does not meet the issuer's rules.
    public static let passwordRules: StatusCode = 419
    /// The passcode does not meet the issuer's rules.
    public static let passcodeRules: StatusCode = 420
    /// Email verification is not complete.
    public static let emailNotVerified: StatusCode = 418
    /// The wallet is deactivated after consecutive failures.
    public static let walletDeactivated: StatusCode = 421
    /// The device is deactivated after consecutive failures.
    public static let deviceDeactivated: StatusCode = 423
    /// The account is locked by an operator.
    public static let accountLocked: StatusCode = 424
    /// Long-lived device tokens are turned off by the issuer.
    public static let deviceTokensDisabled: StatusCode = 432
    /// The device is suspended.
    public static let deviceSuspended: StatusCode = 503
    /// A forgotten-credential reset names an email address no wallet of the issuer has.
    public static let unknownEmail: StatusCode = 410
    /// The password has expired.
    public static let passwordExpired: StatusCode = 508
    /// The app instance verification (registration nonce) is not complete.
    public static let appInstanceNotVerified: StatusCode = 511
    /// The SDK has no device token stored.
    public static let noDeviceToken: StatusCode = 1003
    /// Too many requests.
    public static let tooManyRequests: StatusCode = 429
    /// An unknown error occurred internally in the server.
    public static let serverError: StatusCode = 500
    /// The server is not ready (database unreachable); the HTTP status only, never a body code.
    public static let unavailable: StatusCode = 503
}
