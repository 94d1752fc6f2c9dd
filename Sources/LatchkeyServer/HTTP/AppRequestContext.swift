import Hummingbird
import NIOCore

/// The request context of the Latchkey server.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection.
    public let remoteAddress: SocketAddress?
    /// The framework's own ceiling; `BodyLimitMiddleware` enforces the configured `http.maxBodyBytes`.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// The app context headers of the spec's `PDPaydiantContext`, for the handler of the current request.
public struct ClientContext: Sendable {
    public var applicationSignature: String?
    public var deviceID: String?
    public var deviceType: String?
    public var appVersion: String?
    /// The session token of `Authorization: Bearer …`.
    public var bearerToken: String?
    /// The client's IP address (the peer, or the first `X-Forwarded-For` entry when trusted).
    public var clientIP = "unknown"

    @TaskLocal public static var current = ClientContext()
}
