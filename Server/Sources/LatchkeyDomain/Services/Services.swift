import Crypto
import Foundation
import Logging

/// The secrets and shared parts the services are built from: what `buildApplication` loads or
/// makes before anything else (the pepper's hasher and outbox cipher, the device CA, the clock).
public struct ServiceFoundation: Sendable {
    public let configuration: ServerConfiguration
    /// The engine of `configuration.database`, parsed once.
    public let database: DatabaseEngine
    public let store: any LatchkeyStore
    public let pepper: SymmetricKey
    public let hasher: SecretHasher
    public let cipher: OutboxCipher
    public let authority: CertificateAuthority
    /// The address users and apps reach the server at (links in emails, DPoP `htu`).
    public let publicURL: PublicBaseURL
    /// The message templates, built-in and the issuer's (`courier.templates`), compiled at start.
    public let templates: MessageCatalog
    public let now: @Sendable () -> Date

    public init(configuration: ServerConfiguration, database: DatabaseEngine, store: any LatchkeyStore, pepper: SymmetricKey,
                hasher: SecretHasher, cipher: OutboxCipher, authority: CertificateAuthority, publicURL: PublicBaseURL,
                templates: MessageCatalog, now: @escaping @Sendable () -> Date) {
        self.templates = templates
        self.configuration = configuration
        self.database = database
        self.store = store
        self.pepper = pepper
        self.hasher = hasher
        self.cipher = cipher
        self.authority = authority
        self.publicURL = publicURL
        self.now = now
    }
}

/// Every domain service of the server, each collaborator built once (`buildServices`) and handed
/// to the services that use it: nothing reaches through another service for its parts.
public struct Services: Sendable {
    public let enrollment: EnrollmentService
    public let authentication: AuthenticationService
    public let profile: ProfileService
    /// A forgotten credential's reset: the link's request and the secure portal it opens.
    public let resetPortal: ResetPortalService
    public let signup: SignupService
    public let federation: FederationService
    /// Passkeys: registration, the list, names, removal and the discoverable login.
    public let passkeys: PasskeyService
    /// The authenticator app and recovery codes.
    public let oneTimeFactors: OneTimeFactorService
    public let statistics: LoginStatisticsService
    /// Operators' work on wallets, keys, the courier, the trail and imports: the admin API's, the
    /// console's (served only when `admin.enabled`) and the command line's.
    public let operators: OperatorServices
    /// The operator console's accounts (served only when `admin.enabled` and `admin.console`).
    public let console: ConsoleService
    /// The per-minute limits the edge and the pages count with too.
    public let throttle: Throttle
    /// Admission to hash work, which the edge asks first (the operation's `hashes` in its contract policy).
    public let hashGate: HashGate
}

/// Builds each collaborator once — the audit recorder, the hash admission, the outbox writer, the
/// throttle, the credential verifier, the session issuer, the login flow, the operators' trail —
/// and each service with only what it uses.
public func buildServices(_ foundation: ServiceFoundation) -> Services {
    let (configuration, store, now) = (foundation.configuration, foundation.store, foundation.now)
    let issuer = configuration.issuer
    let audit = AuditRecorder(now: now, pepper: foundation.pepper)
    let admitted = HashAdmission(hasher: foundation.hasher)
    let outbox = OutboxWriter(cipher: foundation.cipher, issuer: issuer, publicURL: foundation.publicURL, templates: foundation.templates)
    let fields = foundation.hasher.profileFieldCipher
    let countInDatabase = switch configuration.rateLimits.counting {
    case .auto: foundation.database.isShared
    case .database: true
    case .memory: false
    }
    let throttle = Throttle(limiter: RateLimiter(now: now), settings: configuration.rateLimits,
                            shared: countInDatabase ? store : nil, now: now)
    let verifier = CredentialVerifier(store: store, issuer: issuer, throttle: throttle, audit: audit, now: now)
    let sessions = SessionIssuer(store: store, issuer: issuer, audit: audit, now: now)
    let trail = OperatorTrail(store: store, issuer: issuer, now: now)
    let passkeys = PasskeyCeremonies(store: store, settings: issuer.passkeys, issuerName: issuer.name, publicURL: foundation.publicURL,
                                     pepper: foundation.pepper, now: now)
    let logins = LoginFlow(store: store, issuer: issuer, verifier: verifier, sessions: sessions, audit: audit, admitted: admitted,
                           now: now, passkeys: passkeys, outbox: outbox)
    return Services(
        enrollment: EnrollmentService(store: store, issuer: issuer, outbox: outbox, fields: fields, audit: audit, admitted: admitted, now: now),
        authentication: AuthenticationService(store: store, issuer: issuer, outbox: outbox, verifier: verifier, sessions: sessions,
                                              logins: logins, audit: audit, admitted: admitted, now: now),
        profile: ProfileService(store: store, issuer: issuer, outbox: outbox, fields: fields, verifier: verifier, audit: audit,
                                admitted: admitted, now: now),
        resetPortal: ResetPortalService(store: store, issuer: issuer, outbox: outbox, verifier: verifier, throttle: throttle, audit: audit,
                                        admitted: admitted, now: now),
        signup: SignupService(store: store, issuer: issuer, outbox: outbox, publicURL: foundation.publicURL, throttle: throttle,
                              logins: logins, sessions: sessions, otpKey: SignupService.otpKey(pepper: foundation.pepper),
                              authority: foundation.authority, audit: audit, admitted: admitted, now: now),
        federation: FederationService(store: store, issuer: issuer, outbox: outbox, fields: fields, verifier: verifier, logins: logins,
                                      providers: FederationService.byID(issuer.identityProviders.map {
                                          OIDCProvider(settings: $0, now: now)
                                      }),
                                      audit: audit, admitted: admitted, now: now),
        passkeys: PasskeyService(store: store, issuer: issuer, ceremonies: passkeys, logins: logins, verifier: verifier, outbox: outbox,
                                 audit: audit, now: now),
        oneTimeFactors: OneTimeFactorService(store: store, issuer: issuer, outbox: outbox, fields: fields, verifier: verifier, audit: audit,
                                             admitted: admitted, now: now),
        statistics: LoginStatisticsService(store: store, settings: issuer.statistics, now: now),
        operators: OperatorServices(
            users: UserAdministration(store: store, issuer: issuer, trail: trail, now: now),
            factors: FactorAdministration(store: store, trail: trail, outbox: outbox, now: now),
            audit: AuditAdministration(store: store, trail: trail, now: now),
            courier: CourierAdministration(store: store, outbox: outbox, verifier: verifier, trail: trail, now: now),
            keys: OperatorKeyAdministration(keys: OperatorKeys(store: store, now: now), trail: trail),
            imports: ImportAdministration(importer: UserImporter(store: store, issuer: issuer, templates: foundation.templates,
                                                                 hasher: { [hasher = foundation.hasher] in hasher },
                                                                 now: now),
                                          trail: trail, now: now),
            trail: trail),
        console: ConsoleService(store: store, hasher: foundation.hasher, pepper: foundation.pepper, issuerName: issuer.name, now: now),
        throttle: throttle, hashGate: foundation.hasher.gate)
}
