import Hummingbird

/// The request context of the Latchkey server.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The framework's own ceiling; `BodyLimitMiddleware` enforces the configured `http.maxBodyBytes`.
    public var maxUploadSize: Int { 16 * 1024 * 1024 }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
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

    @TaskLocal public static var current = ClientContext()
}
