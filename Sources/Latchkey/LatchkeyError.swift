import LatchkeyCore

/// An error of an SDK call (`PDPaydiantError`): the documented status code, the call's domain,
/// the message to show (the app's for that domain, else the server's), and the field at fault.
public struct LatchkeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the error arose.
    public enum Kind: Sendable, Equatable {
        /// The server refused the call.
        case server
        /// The SDK refused the input before sending it, by the same rules as the server.
        case validation
        /// The SDK is not configured correctly (e.g. an invalid application signature).
        case configuration
        /// The server could not be reached or answered something unreadable.
        case transport
        /// The change needs a recent login (`session_refresh_required`): log the user in again, then
        /// repeat the call. The session itself is still valid for everyday calls.
        case reauthenticationRequired
        /// The server is too busy checking credentials (`overloaded`, HTTP 503): nothing was
        /// checked or counted; repeat the call after `retryAfter` seconds.
        case overloaded
        /// The SDK could not read or write its `CredentialStorage` (`detail` names the cause, e.g.
        /// the Keychain's missing entitlement or a phone not unlocked since it started), or the
        /// stored device key cannot be restored (`id` `.deviceKey`: see
        /// `LatchkeyClient.resetDeviceKey()`).
        case storage
    }

    public var kind: Kind
    public var code: StatusCode
    public var domain: ErrorDomain
    /// Stable identifier from the server (`email_in_use`) or the SDK; compare with the
    /// `ErrorID` constants (`.emailInUse`, `.transport`, …).
    public var id: ErrorID
    /// The message to show: the app's configured message for the domain, else the server's.
    public var message: String
    /// The server's (or validator's) own message.
    public var detail: String
    /// The request field at fault, when there is one.
    public var field: String?
    /// How many seconds to wait before repeating the call, when the server said (`Retry-After`:
    /// `.overloaded`, rate limits).
    public var retryAfter: Int?

    /// Whether repeating the same call later may succeed: the server was busy, limited the rate,
    /// or could not reach its database (`not_ready`).
    public var isRetryable: Bool { kind == .overloaded || id == .rateLimited || id == .notReady }

    public init(kind: Kind, code: StatusCode, domain: ErrorDomain, id: ErrorID, message: String, detail: String,
                field: String? = nil, retryAfter: Int? = nil) {
        self.retryAfter = retryAfter
        self.kind = kind
        self.code = code
        self.domain = domain
        self.id = id
        self.message = message
        self.detail = detail
        self.field = field
    }

    public var description: String { "\(domain) \(code) \(id): \(detail)" }

    /// A failure of the SDK's storage (`KeychainError`'s description names the cause).
    static func storage(_ error: any Error, domain: ErrorDomain = .configuration) -> LatchkeyError {
        if var known = error as? LatchkeyError {
            known.domain = domain
            return known
        }
        let detail = "The SDK's credential storage failed: \(error)"
        return LatchkeyError(kind: .storage, code: .serverError, domain: domain, id: .storage, message: detail, detail: detail)
    }

    static func configuration(_ detail: String) -> LatchkeyError {
        LatchkeyError(kind: .configuration, code: .invalidParameter, domain: .configuration, id: .configuration,
                      message: detail, detail: detail)
    }
}
