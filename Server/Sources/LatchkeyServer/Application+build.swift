import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyHTTP
import LatchkeySQL
import LatchkeyServerAPI
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle

/// What the host of the server may replace: the clock, the pepper, the message channel and a
/// callback with the bound port. The CLI and the tests build the server through `buildApplication`.
public struct BuildOptions: Sendable {
    public var logger: Logger
    public var now: @Sendable () -> Date
    public var pepper: SymmetricKey?
    /// The device-certificate CA; loaded from (or created in) the configured files when nil.
    public var certificateAuthority: CertificateAuthority?
    /// The keys sealed credentials are opened with; loaded from (or created in) the configured files when nil.
    public var sealKeys: SealKeyring?
    public var channel: (any MessageChannel)?
    public var runCourier: Bool
    public var onServerRunning: @Sendable (Int) async -> Void
    /// Services that run beside the server and stop after it (the trace exporter, `TracingSetup`).
    public var services: [any Service] = []

    public init(logger: Logger = Logger(label: "latchkey"), now: @escaping @Sendable () -> Date = Date.init,
                pepper: SymmetricKey? = nil, certificateAuthority: CertificateAuthority? = nil,
                channel: (any MessageChannel)? = nil, runCourier: Bool = true,
                onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.certificateAuthority = certificateAuthority
        self.logger = logger
        self.now = now
        self.pepper = pepper
        self.channel = channel
        self.runCourier = runCourier
        self.onServerRunning = onServerRunning
    }
}

/// A built server: the Hummingbird application plus the parts tests and tools reach into.
public struct LatchkeyApplication: Sendable {
    public let application: Application<RouterResponder<AppRequestContext>>
    public let configuration: ServerConfiguration
    public let store: any LatchkeyStore
    public let hasher: SecretHasher
    public let cipher: OutboxCipher
    public let courier: CourierWorker
    public let routes: RouteTable
    /// The CA that signs device certificates.
    public let certificateAuthority: CertificateAuthority

    /// Serves until SIGINT/SIGTERM, then shuts down gracefully: the server drains, the courier
    /// stops, the store's background work ends (`StoreService`), the database closes.
    /// Runs until SIGTERM or SIGINT; a shutdown takes at most `shutdownGraceSeconds` (then what
    /// is still running is cancelled), whatever the database does.
    public func run() async throws {
        var group = ServiceGroupConfiguration(services: [.init(service: application)], gracefulShutdownSignals: [.sigterm, .sigint],
                                              logger: application.logger)
        group.maximumGracefulShutdownDuration = .seconds(configuration.shutdownGraceSeconds)
        group.maximumCancellationDuration = .seconds(2)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }
}

/// Builds the whole server from its configuration, as Hummingbird's template does: the store,
/// the secrets, the services (`buildServices`), the router (`buildRouter`), the application with
/// its services (the store's background work, the courier).
public func buildApplication(_ configuration: ServerConfiguration, options: BuildOptions = .init()) async throws
    -> LatchkeyApplication {
    let logger = options.logger
    // Nothing reads the database until the application runs: the store's background work is a
    // service of the application, and migrations run before the server accepts requests.
    let database = try DatabaseURL(configuration.database)
    try CommonPasswords.load()
    // Built before the store opens: a channel secret that cannot be read stops the start with
    // nothing opened yet.
    let channel: any MessageChannel = try options.channel ?? makeChannel(configuration.courier, issuer: configuration.issuer.name, logger: logger)
    // The message templates too: one that does not parse or uses an unknown name stops the start.
    let templates = try MessageCatalog.load(overrides: configuration.courier.templates,
                                             defaultLanguage: configuration.languages.default)
    let store = try await StoreFactory.open(database, logger: logger,
                                            timeout: .milliseconds(configuration.databaseTimeoutMilliseconds))
    let storeService = StoreService(store: store, logger: logger, auditRetentionDays: configuration.audit.retentionDays,
                                    statisticsRetentionDays: configuration.issuer.statistics.retentionDays,
                                    now: options.now)

    // A single server on SQLite creates missing secrets on first start; PostgreSQL, which replicas
    // share, needs them provided (`latchkey secrets generate`), so no replica invents its own.
    let generateSecrets = !database.engine.isShared
    let pepper = try options.pepper ?? Pepper.load(settings: configuration.secrets, generate: generateSecrets, logger: logger)
    let previousPeppers = try Pepper.previous(settings: configuration.secrets)
    let hasher = SecretHasher(settings: configuration.hashing, pepper: pepper, previousPeppers: previousPeppers)
    // One hash seeds the gate's estimate, so a burst right after the start is bounded too.
    try await hasher.burn("calibration")
    let cipher = OutboxCipher(pepper: pepper, previousPeppers: previousPeppers)
    let authority = try options.certificateAuthority
        ?? CertificateAuthority.load(settings: configuration.secrets, issuerName: configuration.issuer.name,
                                     generate: generateSecrets, logger: logger)
    let sealKeys = try options.sealKeys ?? SealKeyring.load(settings: configuration.secrets, generate: generateSecrets, logger: logger)
    let publicURL = PublicBaseURL(configuration: configuration)
    let services = buildServices(ServiceFoundation(configuration: configuration, database: database.engine, store: store,
                                                   pepper: pepper, hasher: hasher,
                                                   cipher: cipher, authority: authority, publicURL: publicURL,
                                                   templates: templates, now: options.now))
    let adminHere = configuration.admin.enabled && configuration.admin.onPublicPort
    let router = try buildRouter(services, configuration: configuration, store: store, pepper: pepper, sealKeys: sealKeys,
                                 publicURL: publicURL, adminRoutes: adminHere ? AdminOperations.routes(console: configuration.admin.console) : nil,
                                 streamedPaths: adminHere ? AdminOperations.streamedPaths : [], now: options.now)

    let admin = try buildAdmin(configuration, store: store, services: services, pepper: pepper, publicURL: publicURL, router: router, logger: logger, now: options.now,
                               beforeStart: { try await storeService.ready.wait() })

    let courier = CourierWorker(store: store, channel: channel, cipher: cipher, settings: configuration.courier,
                                logger: logger, now: options.now, ready: storeService.ready)
    let onRunning = options.onServerRunning
    var application = Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: [ClientPresenceHandler()])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
        services: options.services + [storeService] + (options.runCourier ? [courier] : []) + (admin.map { [$0] } ?? [])
            + [ShedRecorder(gate: services.hashGate, store: store, now: options.now)],
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            publicURL.bound(host: configuration.host, port: port)
            await onRunning(port)
        },
        logger: logger)
    application.beforeServerStarts {
        try await storeService.ready.wait()
        try await ClusterSecrets.check(store: store, pepper: pepper, previousPeppers: previousPeppers, authority: authority,
                                       sealKeys: sealKeys, now: options.now(), logger: logger)
    }
    return LatchkeyApplication(application: application, configuration: configuration, store: store, hasher: hasher,
                               cipher: cipher, courier: courier, routes: ApplicationRoutes.table,
                               certificateAuthority: authority)
}

/// The courier's channel: one channel when email and SMS share the default, else each kind of
/// message through its own. `issuer` is the issuer's name, which provider request bodies may use.
/// - Throws: `ConfigurationError` when a secret a channel needs cannot be read.
package func makeChannel(_ settings: CourierSettings, issuer: String = "", logger: Logger) throws -> any MessageChannel {
    let email = settings.route(.email), sms = settings.route(.sms)
    let emailChannel = try makeChannel(email.settings, key: email.key, issuer: issuer, logger: logger)
    guard settings.email != nil || settings.sms != nil else { return emailChannel }
    return ChannelRouter(email: emailChannel, sms: try makeChannel(sms.settings, key: sms.key, issuer: issuer, logger: logger))
}

/// One channel from its settings (`key`: where they were read, for errors).
/// - Throws: `ConfigurationError` when a secret the channel needs cannot be read.
package func makeChannel(_ settings: ChannelRoute, key: String, issuer: String = "", logger: Logger) throws -> any MessageChannel {
    switch settings.channel {
    case .log: LogChannel(logger: logger)
    case .file: FileChannel(path: settings.path ?? "latchkey-messages.jsonl")
    case .webhook: WebhookChannel(url: settings.url ?? "")
    case .smtp:
        try SMTPChannel(settings: settings.smtp ?? SMTPSettings(), password: settings.smtp?.password?.read(key: "\(key).smtp.password"),
                        key: "\(key).smtp", logger: logger)
    case .http: try HTTPProviderChannel(settings: settings.http ?? HTTPChannelSettings(), key: "\(key).http", issuer: issuer, logger: logger)
    }
}
