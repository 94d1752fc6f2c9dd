import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAdminAPI
import LatchkeyDomain
import LatchkeyHTTP
import OpenAPIHummingbird
import OpenAPIRuntime

/// The admin API's operations on a route group: each behind its own `AdminEdgeMiddleware`
/// carrying the role the document declares for it (`x-latchkey-role`, `AdminRoute.all`).
struct AdminRoutes: ServerTransport {
    let group: RouterGroup<AdminRequestContext>
    let edge: @Sendable (AdminOperation) -> AdminEdgeMiddleware

    /// An operation of the generated code without a route in `AdminRoute.all`.
    struct UndeclaredOperation: Error, CustomStringConvertible {
        let route: String
        var description: String { "\(route) is not an operation of the admin document" }
    }

    func register(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
                  method: HTTPRequest.Method, path: String) throws {
        guard let route = AdminRoute.of(method: method.rawValue, path: path) else {
            throw UndeclaredOperation(route: "\(method.rawValue) \(path)")
        }
        group.group().add(middleware: edge(route.operation)).register(Self.linkRestored(AdminInput.guarded(route, handler)), method: method, path: path)
    }

    /// The runtime writes header values percent-encoded (as URI parts); `Link` is a structured
    /// header whose `<…>` and `rel="next"` a client reads as they are, so it is decoded back
    /// (`AdminHandler` builds it of characters that need no encoding).
    static func linkRestored(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws
        -> (HTTPResponse, HTTPBody?)) -> @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) {
        { request, body, metadata in
            var (response, answer) = try await handler(request, body, metadata)
            if let link = response.headerFields[Self.link], let decoded = link.removingPercentEncoding {
                response.headerFields[Self.link] = decoded
            }
            return (response, answer)
        }
    }

    static let link = HTTPField.Name("Link")!
}

/// Adds the admin API to `router` under `/admin/v1`: its own error rendering (the wallet API's
/// envelope, `code` the HTTP status) and the edge of each operation.
public func addAdminRoutes(to router: Router<AppRequestContext>, operators: OperatorServices, keys: OperatorKeys, throttle: Throttle,
                           proxies: TrustedProxies, settings: AdminSettings, perAddress: Int) throws {
    let group = router.group(context: AdminRequestContext.self)
        .add(middleware: ErrorMiddleware(routes: AdminOperations.routes(console: settings.console), dialect: .wallet))
    let routes = AdminRoutes(group: group) { operation in
        AdminEdgeMiddleware(keys: keys, trail: operators.trail, throttle: throttle, proxies: proxies, settings: settings,
                            perAddress: perAddress, operation: operation)
    }
    try AdminHandler(operators: operators, importMaxBytes: settings.importMaxBytes).registerHandlers(on: routes, configuration: .init(dateTranscoder: SecondsDateTranscoder()))
}

/// Adds the operator console (`/console`) to `router`: its pages, behind the client address's
/// limit (the admin API's count) and a signed-in operator.
public func addConsoleRoutes(to router: Router<AppRequestContext>, console: ConsoleService, operators: OperatorServices, pepper: SymmetricKey,
                             secureCookies: Bool, throttle: Throttle, proxies: TrustedProxies, perAddress: Int, issuerName: String,
                             maxBodyBytes: Int, now: @escaping @Sendable () -> Date) {
    ConsoleRoutes(console: console, operators: operators, cookies: ConsoleCookies(pepper: pepper, secure: secureCookies),
                  formCSRF: PortalCSRF(pepper: pepper, secureCookie: secureCookies), throttle: throttle, proxies: proxies,
                  perAddress: perAddress, issuerName: issuerName, maxBodyBytes: maxBodyBytes, now: now)
        .add(to: router.group())
}
