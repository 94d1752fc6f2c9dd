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
    /// The email address is already used by another wallet.
    public static let emailInUse: StatusCode = 416
    /// The password does not meet the issuer's rules.
    public static let passwordRules: StatusCode = 419
    /// The passcode does not meet the issuer's rules.
    public static let passcodeRules: StatusCode = 420
    /// Too many requests.
    public static let tooManyRequests: StatusCode = 429
    /// An unknown error occurred internally in the server.
    public static let serverError: StatusCode = 500
    /// The server is not ready (database unreachable).
    public static let unavailable: StatusCode = 503
}
