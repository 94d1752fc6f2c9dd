import Hummingbird
import LatchkeyDomain

/// Opens each request's audit trail (`AuditTrail`, the context's): the events a request records
/// ride the transaction of its change; those of a request that changed nothing (a refused login)
/// are written when it ends, answered or thrown.
package struct AuditMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext
    package let store: any AuditStore
    package let proxies: TrustedProxies

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        context.audit.identify(device: nil, clientIP: proxies.clientAddress(of: request, peer: context.remoteAddress))
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            // A failed request's events are written as well as can be; its own error is what the client gets.
            try? await context.audit.flush(to: store)
            throw error
        }
        try await context.audit.flush(to: store)
        return response
    }
}
