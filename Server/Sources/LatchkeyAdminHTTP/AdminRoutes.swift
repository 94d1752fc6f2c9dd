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
/// carrying the role the document declares for it (`x-latchkey-role`, `AdminOperations.all`).
struct AdminRoutes: ServerTransport {
    let group: RouterGroup<AdminRequestContext>
    let edge: @Sendable (AdminOperation) -> AdminEdgeMiddleware

    /// An operation of the generated code without a role in `AdminOperations.roles`.
    struct UndeclaredOperation: Error, CustomStringConvertible {
        let route: String
        var description: String { "\(route) has no x-latchkey-role" }
    }

    func register(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
                  method: HTTPRequest.Method, path: String) throws {
        guard let operation = AdminOperations.all["\(method.rawValue) \(path)"] else {
            throw UndeclaredOperation(route: "\(method.rawValue) \(path)")
        }
        group.group().add(middleware: edge(operation)).register(Self.linkRestored(AdminInput.guarded(operation.id, handler)), method: method, path: path)
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

/// An admin operation: its id and the least role it needs.
public struct AdminOperation: Sendable, Equatable {
    public let id: String
    public let role: OperatorRole
    public init(id: String, role: OperatorRole) {
        self.id = id
        self.role = role
    }
}

/// Each admin operation by `METHOD path`, as `operationId` and `x-latchkey-role` in the admin
/// document declare it (`AdminAPITests` holds the two together).
public enum AdminOperations {
    public static let all: [String: AdminOperation] = [
        "GET /admin/v1/users": .init(id: "listUsers", role: .viewer),
        "GET /admin/v1/users/{userId}": .init(id: "getUser", role: .viewer),
        "POST /admin/v1/users/{userId}/lock": .init(id: "lockUser", role: .support),
        "POST /admin/v1/users/{userId}/unlock": .init(id: "unlockUser", role: .support),
        "DELETE /admin/v1/users/{userId}/sessions": .init(id: "endUserSessions", role: .support),
        "GET /admin/v1/events": .init(id: "listEvents", role: .viewer),
        "DELETE /admin/v1/users/{userId}": .init(id: "eraseUser", role: .admin),
        "POST /admin/v1/users/{userId}/deactivate": .init(id: "deactivateUser", role: .support),
        "POST /admin/v1/users/{userId}/reactivate": .init(id: "reactivateUser", role: .support),
        "POST /admin/v1/users/{userId}/devices/{deviceId}/deactivate": .init(id: "deactivateDevice", role: .support),
        "POST /admin/v1/users/{userId}/devices/{deviceId}/suspend": .init(id: "suspendDevice", role: .support),
        "POST /admin/v1/users/{userId}/devices/{deviceId}/reactivate": .init(id: "reactivateDevice", role: .support),
        "DELETE /admin/v1/users/{userId}/devices/{deviceId}": .init(id: "unlinkDevice", role: .support),
        "DELETE /admin/v1/users/{userId}/sessions/{sessionId}": .init(id: "endSession", role: .support),
        "POST /admin/v1/users/{userId}/verification-email": .init(id: "resendVerification", role: .support),
        "POST /admin/v1/users/{userId}/reset-link": .init(id: "sendResetLink", role: .support),
        "POST /admin/v1/users/{userId}/verify": .init(id: "markVerified", role: .support),
        "GET /admin/v1/courier/messages": .init(id: "listCourierMessages", role: .viewer),
        "POST /admin/v1/users/import": .init(id: "importUsers", role: .admin),
        "GET /admin/v1/keys": .init(id: "listOperatorKeys", role: .admin),
        "POST /admin/v1/keys": .init(id: "createOperatorKey", role: .admin),
        "DELETE /admin/v1/keys/{keyId}": .init(id: "revokeOperatorKey", role: .admin),
    ]

    /// Routes whose body the handler reads as it arrives (the request body limit does not apply).
    public static let streamedPaths: Set<String> = ["/admin/v1/users/import"]

    /// The admin routes by method, so a known path with another method is 405 with `Allow`.
    public static let table: RouteTable = {
        var table = RouteTable()
        for route in all.keys.sorted() {
            let parts = route.split(separator: " ", maxSplits: 1)
            table.add(HTTPRequest.Method(String(parts[0]))!, String(parts[1]))
        }
        return table
    }()
}

/// Adds the admin API to `router` under `/admin/v1`: its own error rendering (the wallet API's
/// envelope, `code` the HTTP status) and the edge of each operation.
public func addAdminRoutes(to router: Router<AppRequestContext>, admin: AdminService, keys: OperatorKeys, throttle: Throttle,
                           proxies: TrustedProxies, settings: AdminSettings, perAddress: Int) throws {
    let group = router.group(context: AdminRequestContext.self)
        .add(middleware: ErrorMiddleware(routes: AdminOperations.routes(console: settings.console), dialect: .wallet))
    let routes = AdminRoutes(group: group) { operation in
        AdminEdgeMiddleware(keys: keys, admin: admin, throttle: throttle, proxies: proxies, settings: settings,
                            perAddress: perAddress, operation: operation)
    }
    try AdminHandler(admin: admin, importMaxBytes: settings.importMaxBytes).registerHandlers(on: routes, configuration: .init(dateTranscoder: SecondsDateTranscoder()))
}

extension AdminOperations {
    /// The routes of the admin listener (or of the public port's admin part): the API's, and the
    /// console's when it is on.
    public static func routes(console: Bool) -> RouteTable {
        console ? table.adding(ConsoleRoutes.table) : table
    }
}

/// Adds the operator console (`/console`) to `router`: its pages, behind the client address's
/// limit (the admin API's count) and a signed-in operator.
public func addConsoleRoutes(to router: Router<AppRequestContext>, console: ConsoleService, admin: AdminService, pepper: SymmetricKey,
                             secureCookies: Bool, throttle: Throttle, proxies: TrustedProxies, perAddress: Int, issuerName: String,
                             maxBodyBytes: Int, now: @escaping @Sendable () -> Date) {
    ConsoleRoutes(console: console, admin: admin, cookies: ConsoleCookies(pepper: pepper, secure: secureCookies),
                  formCSRF: PortalCSRF(pepper: pepper, secureCookie: secureCookies), throttle: throttle, proxies: proxies,
                  perAddress: perAddress, issuerName: issuerName, maxBodyBytes: maxBodyBytes, now: now)
        .add(to: router.group())
}
