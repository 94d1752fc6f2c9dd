import Hummingbird
import LatchkeyDomain

/// Opens each request's audit scope (`AuditTrail.scope`): the events a request records ride the
/// transaction of its change; those of a request that changed nothing (a refused login) are
/// written when it ends, answered or thrown.
package struct AuditMiddleware<Context: RequestContext & RemoteAddressRequestContext>: RouterMiddleware {
    package let store: any AuditStore
    package let proxies: TrustedProxies

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await AuditTrail.scope(actor: .user, clientIP: request.clientIP(peer: context.remoteAddress, proxies: proxies),
                                   store: store) {
            try await next(request, context)
        }
    }
}
