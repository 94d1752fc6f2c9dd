import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import NIOCore

/// The request context of the Latchkey server at the router: the operational routes, the web pages
/// and the framework's own answers (unknown route, wrong method, body too large).
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection.
    public let remoteAddress: SocketAddress?
    /// The connection, to tell whether its client is still there (`ClientPresence`).
    package let channel: any Channel
    /// The connection as a request's `Caller` carries it.
    package var connection: ChannelConnection { ChannelConnection(channel: channel) }
    /// The framework's own ceiling; `BodyLimitMiddleware` enforces the configured `http.maxBodyBytes`.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }
    /// The request's security events (`AuditTrail`), opened and flushed by `AuditMiddleware`; the
    /// request's `Caller` carries it to the services.
    public let audit = AuditTrail(actor: .user)

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// The caller of a request that has no edge (the web pages): its connection and audit trail.
    package var pageCaller: Caller {
        var caller = Caller(connection: connection, audit: audit)
        caller.client.clientIP = audit.origin.clientIP ?? ClientContext.unknownAddress
        return caller
    }
}

/// The context of an API route group: the `Caller` (app context headers, identity, device key,
/// connection), resolved once by `EdgeMiddleware`, and the group's error dialect.
public protocol APIRequestContext: ChildRequestContext<AppRequestContext>, RemoteAddressRequestContext {
    /// How the group writes its errors.
    static var dialect: ErrorDialect { get }
    /// The refusal of a request over the per-IP limit.
    static var rateLimited: DomainError { get }
    /// Whether the group requires the app context of `PDPaydiantContext` (`X-Application-Signature`).
    static var requiresAppSignature: Bool { get }
    /// Who calls and from where, resolved by the edge.
    var caller: Caller { get set }
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
    public var caller: Caller

    public init(context: AppRequestContext) {
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
        caller = Caller(connection: context.connection, audit: context.audit)
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
    public var caller: Caller

    public init(context: AppRequestContext) {
        coreContext = context.coreContext
        remoteAddress = context.remoteAddress
        caller = Caller(connection: context.connection, audit: context.audit)
    }
}

/// The caller of the request being handled, for the handlers of the generated `APIProtocol`
/// (which see no Hummingbird context): set once by `EdgeMiddleware` from the group's typed context
/// and read only by the handlers, which pass it to the services as a value. The request's one
/// task-local, at the generated handler's boundary.
public enum RequestCaller {
    @TaskLocal package static var current = Caller()
}
