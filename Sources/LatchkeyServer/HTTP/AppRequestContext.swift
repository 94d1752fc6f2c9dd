import Hummingbird

/// The request context of the Latchkey server.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Bodies above this size are refused with 413 (`http.maxBodyBytes`).
    public var maxUploadSize: Int

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        maxUploadSize = 65_536
    }
}

/// The app context headers of the spec's `PDPaydiantContext`, for the handler of the current request.
public struct ClientContext: Sendable {
    public var applicationSignature: String?
    public var deviceID: String?
    public var deviceType: String?
    public var appVersion: String?

    @TaskLocal public static var current = ClientContext()
}
