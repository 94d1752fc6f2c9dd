import Hummingbird
import LatchkeyDomain

/// The portal's pages are limited per client address as the API's operations are (`AddressRateLimit`),
/// the refusal a page rather than JSON.
package struct PortalLimitMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    package let limit: AddressRateLimit
    package let proxies: TrustedProxies
    package let issuerName: String
    package let catalog: TextCatalog

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let wait = try await limit.refusal(proxies.clientAddress(of: request, peer: context.remoteAddress)) {
            var page = WebPage.message(.tooManyRequests, "page.tooManyRequests", texts: catalog.texts(for: request),
                                       issuerName: issuerName).response()
            page.headers[.retryAfter] = String(wait)
            return page
        }
        return try await next(request, context)
    }
}
