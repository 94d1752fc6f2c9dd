import HTTPTypes
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime

/// The two API route groups as one transport for the generated `registerHandlers`: each operation
/// of the contract is registered, once at start-up, on the group its path belongs to — the
/// Kratos-compatible group for `/a/…` and `/identity/…`, the wallet group for the rest. Each group
/// has its own context type, middlewares and error rendering.
struct APIRouteGroups: ServerTransport {
    let wallet: RouterGroup<WalletRequestContext>
    let kratos: RouterGroup<KratosRequestContext>

    /// The Kratos-compatible operations of the contract.
    static func isKratos(_ path: String) -> Bool { path.hasPrefix("/a/") || path.hasPrefix("/identity/") }

    func register(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
                  method: HTTPRequest.Method, path: String) throws {
        if Self.isKratos(path) {
            try kratos.register(handler, method: method, path: path)
        } else {
            try wallet.register(handler, method: method, path: path)
        }
    }
}
