import Crypto
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyHTTP
import Logging

/// The admin API (`admin.enabled`): on the public router instead of a listener of its own when
/// `admin.onPublicPort`, else on its own listener (`admin.host`, `admin.port`), an application run
/// as a service of the main one (started and stopped with it). Answers the service to run, if any.
func buildAdmin(_ configuration: ServerConfiguration, store: any LatchkeyStore, services: Services, pepper: SymmetricKey, publicURL: PublicBaseURL,
                router: Router<AppRequestContext>,
                logger: Logger, now: @escaping @Sendable () -> Date,
                beforeStart: @escaping @Sendable () async throws -> Void) throws -> (any Service)? {
    // Validated with the configuration (`http.trustedProxies`).
    let proxies = TrustedProxies(configuration.http.trustedProxies) ?? TrustedProxies([])!
    let settings = configuration.admin
    guard settings.enabled else { return nil }
    let (operators, throttle) = (services.operators, services.throttle)
    let keys = OperatorKeys(store: store, now: now)
    let perAddress = configuration.rateLimits.requestsPerMinutePerIP
    // Secure cookies where the console is reached over TLS.
    let secure = settings.resolvedConsoleURL(publicURL: publicURL.value).hasPrefix("https:")
    func addConsole(to router: Router<AppRequestContext>) {
        guard settings.console else { return }
        addConsoleRoutes(to: router, console: services.console, operators: operators, pepper: pepper, secureCookies: secure, throttle: throttle,
                         proxies: proxies, perAddress: perAddress, issuerName: configuration.issuer.name,
                         maxBodyBytes: configuration.http.maxBodyBytes, now: now)
    }
    if settings.onPublicPort {
        try addAdminRoutes(to: router, operators: operators, keys: keys, throttle: throttle, proxies: proxies, settings: settings, perAddress: perAddress)
        addConsole(to: router)
        return nil
    }
    let adminRouter = Router(context: AppRequestContext.self)
    if configuration.telemetry.tracing.enabled {
        adminRouter.add(middleware: RequestTracingMiddleware(proxies: proxies, configured: configuration.http.trustedProxies))
    }
    adminRouter.add(middleware: RequestLogMiddleware())
    adminRouter.add(middleware: ErrorMiddleware(routes: AdminOperations.routes(console: settings.console), dialect: .wallet))
    adminRouter.add(middleware: CanonicalPathMiddleware())
    adminRouter.add(middleware: BodyLimitMiddleware(maxBytes: configuration.http.maxBodyBytes, streamedPaths: AdminOperations.streamedPaths))
    try addAdminRoutes(to: adminRouter, operators: operators, keys: keys, throttle: throttle, proxies: proxies, settings: settings, perAddress: perAddress)
    addConsole(to: adminRouter)
    let host = settings.host, port = settings.port
    var application = Application(router: adminRouter,
                       configuration: .init(address: .hostname(host, port: port), serverName: "Latchkey admin"),
                       onServerRunning: { channel in
                           logger.info("Admin API listening", metadata: ["address": "\(channel.localAddress?.description ?? "\(host):\(port)")"])
                       },
                       logger: logger)
    // Like the public server: no call before the schema is migrated and the store is ready.
    application.beforeServerStarts(perform: beforeStart)
    return application
}
