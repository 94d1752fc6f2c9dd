import Crypto
import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServerAPI
import OpenAPIHummingbird
import OpenAPIRuntime

/// The router over the services: the middlewares every request passes, the operational routes,
/// the web pages (limited per client IP, forms CSRF-protected), and the contract's operations on
/// the wallet and Kratos-compatible groups, each behind the edge of its own policy.
package func buildRouter(_ services: Services, configuration: ServerConfiguration, store: any LatchkeyStore, pepper: SymmetricKey,
                 sealKeys: SealKeyring, publicURL: PublicBaseURL, adminRoutes: RouteTable? = nil, streamedPaths: Set<String> = [],
                 now: @escaping @Sendable () -> Date) throws -> Router<AppRequestContext> {
    guard let proxies = TrustedProxies(configuration.http.trustedProxies) else {
        throw ConfigurationError(key: "http.trustedProxies", message: "Each entry must be an IP address or a CIDR block.")
    }
    let (throttle, maxBody, issuer) = (services.throttle, configuration.http.maxBodyBytes, configuration.issuer)
    // The pages and the API's messages in the customer's language (the admin API stays English).
    let catalog = try TextCatalog.load(configuration.languages)
    let router = Router(context: AppRequestContext.self)
    // First, so the request's log line and every other middleware run inside its span.
    if configuration.telemetry.tracing.enabled {
        router.add(middleware: RequestTracingMiddleware(proxies: proxies, configured: configuration.http.trustedProxies))
    }
    router.add(middleware: RequestLogMiddleware())
    // The admin API's routes too when it answers on this port (`admin.onPublicPort`): 405 with `Allow`.
    router.add(middleware: ErrorMiddleware(routes: ApplicationRoutes.table.adding(adminRoutes),
                                           catalog: adminRoutes == nil ? catalog : nil))
    router.add(middleware: CanonicalPathMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: BodyLimitMiddleware(maxBytes: maxBody, streamedPaths: streamedPaths))
    router.add(middleware: AuditMiddleware(store: store, proxies: proxies))
    OperationalRoutes.add(to: router, store: store, registry: MetricsBackend.registry(), http: configuration.http)
    ContractRoutes.add(to: router, issuer: issuer, serverURL: publicURL.value)
    try WellKnownRoutes.add(to: router, passkeys: issuer.passkeys)

    let pages = router.group().add(middleware: PortalLimitMiddleware(limit: AddressRateLimit(throttle: throttle), proxies: proxies,
                                                                      issuerName: issuer.name, catalog: catalog))
    let csrf = PortalCSRF(pepper: pepper, secureCookie: publicURL.value.hasPrefix("https:"))
    WebRoutes(enrollment: services.enrollment, profile: services.profile, issuer: issuer, csrf: csrf, maxBodyBytes: maxBody,
              catalog: catalog).add(to: pages)
    PortalRoutes(portal: services.resetPortal, issuer: issuer, csrf: csrf, maxBodyBytes: maxBody, catalog: catalog).add(to: pages)

    let dpop = DPoPVerifier(publicURL: publicURL, nonces: DPoPNonces(pepper: pepper), now: now)
    let unsealer = CredentialUnsealer(keys: sealKeys, settings: issuer.encryptionSettings,
                                      metadata: issuer.enrollmentRules.metadata, now: now)
    var groups = APIRouteGroups(
        wallet: router.group(context: WalletRequestContext.self)
            .add(middleware: ErrorMiddleware(routes: ApplicationRoutes.table, dialect: .wallet, catalog: catalog)),
        kratos: router.group(context: KratosRequestContext.self)
            .add(middleware: ErrorMiddleware(routes: ApplicationRoutes.table, dialect: .kratos, catalog: catalog)),
        edge: EdgeServices(throttle: throttle, hashGate: services.hashGate, proxies: proxies, authentication: services.authentication,
                           dpop: dpop, replay: ProofReplay(store: store, now: now), deviceBinding: issuer.deviceBinding,
                           unsealer: unsealer, maxBodyBytes: maxBody, catalog: catalog))
    let api = try APIHandler(enrollment: services.enrollment, authentication: services.authentication, profile: services.profile,
                             resetPortal: services.resetPortal, signup: services.signup, federation: services.federation, statistics: services.statistics,
                             passkeys: services.passkeys, oneTimeFactors: services.oneTimeFactors, sealing: unsealer, catalog: catalog)
    groups.answeredDirectly = api.answeredDirectly
    try api.registerHandlers(
        on: groups, configuration: .init(dateTranscoder: SecondsDateTranscoder(), jsonEncodingOptions: []))
    return router
}
