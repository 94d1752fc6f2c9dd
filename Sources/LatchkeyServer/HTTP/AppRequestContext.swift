import Hummingbird
import LatchkeyCore
import NIOCore

/// The request context of the Latchkey server at the router: the operational routes, the web pages
/// and the framework's own answers (unknown route, wrong method, body too large).
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection.
    public let remoteAddress: SocketAddress?
    /// The connection, to tell whether its client is still there (`ClientPresence`).
    let channel: any Channel
    /// The framework's own ceiling; `BodyLimitMiddleware` enforces the configured `http.maxBodyBytes`.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}

/// The context of an API route group: the app's context headers and the caller's identity,
/// resolved once by `EdgeMiddleware`, and the group's error dialect.
public protocol APIRequestContext: ChildRequestContext<AppRequestContext>, RemoteAddressRequestContext {
    /// How the group writes its errors.
    static var dialect: ErrorDialect { get }
    /// The refusal of a request over the per-IP limit.
    static var rateLimited: DomainError { get }
    /// Whether the group requires the app context of `PDPaydiantContext` (`X-Application-Signature`).
    static var requiresAppSignature: Bool { get }
    /// The app's context headers and the client's address.
    var client: ClientContext { get set }
    /// Who the caller is.
    var identity: Identity { get set }
}

/// The wallet API (`/v1/…`): DESIGN §3's error envelope, the app signature required, the session
/// as `Authorization: Bearer`.
public struct WalletRequestContext: APIRequestContext {
    public static let dialect = ErrorDialect.wallet
    public static let rateLimited = DomainError(.rateLimited)
    public static let requiresAppSignature = true
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var maxUploadSize: Int { 16 * 1024 * 1024 }
    public var client = ClientContext()
    public var identity = Identity.anonymous

    public init(context: AppRequestContext) {
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
    }
}

/// The Ory Kratos-compatible API (`/a/…`, `/identity/…`): Kratos's error envelope, the session as
/// `X-Session-Token` or `Authorization: Bearer`.
public struct KratosRequestContext: APIRequestContext {
    public static let dialect = ErrorDialect.kratos
    public static let rateLimited = DomainError(.flowTooManyRequests, message: "Too many requests from this address.")
    public static let requiresAppSignature = false
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var maxUploadSize: Int { 16 * 1024 * 1024 }
    public var client = ClientContext()
    public var identity = Identity.anonymous

    public init(context: AppRequestContext) {
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
    }
}

/// The app context headers of the spec's `PDPaydiantContext` and the client's address.
public struct ClientContext: Sendable {
    public var applicationSignature: String?
    /// The device as the server knows it: `jkt:` and the RFC 7638 thumbprint of the key the
    /// request's DPoP proof proved; without a proof, the `X-Device-ID` header when
    /// `issuer.deviceBinding` is `optional`, else nil.
    public var deviceID: String?
    /// The app's own name for the device (`X-Device-ID`), which decides nothing.
    public var deviceLabel: String?
    public var deviceType: String?
    public var appVersion: String?
    /// The client's IP address (the peer, or the first `X-Forwarded-For` entry when trusted).
    public var clientIP = "unknown"
    /// The RFC 7638 thumbprint of the device key the request's DPoP proof proved, if it sent one.
    public var keyThumbprint: String?
}

/// What the edge resolved for the request being handled, for the handlers of the generated
/// `APIProtocol` (which see no Hummingbird context): set by `EdgeMiddleware` from the group's
/// typed context, read-only below it.
public enum RequestIdentity {
    /// Both values in one task-local, set once per request.
    @TaskLocal static var edge = (identity: Identity.anonymous, client: ClientContext())
    /// Who the caller is.
    public static var current: Identity { edge.identity }
    /// The app's context headers and the client's address.
    public static var client: ClientContext { edge.client }
}
