import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime
import OpenAPIURLSession

/// The SDK's entry point: one per app, built from the app's `LatchkeyContext`.
///
/// ```swift
/// let client = LatchkeyClient(context: LatchkeyContext(
///     serverURL: URL(string: "https://wallet.example.com")!,
///     applicationSignature: "3F2504E0-4F89-11D3-9A0C-0305E82C3301", deviceID: deviceID))
/// let questions = try await client.enrollment.retrieveMfaQuestionsWithMetadata()
/// ```
public final class LatchkeyClient: Sendable {
    public let context: LatchkeyContext
    /// The user enrollment module.
    public let enrollment: EnrollmentClient
    /// The authentication module.
    public let authentication: AuthenticationClient
    /// Phone sign-up (`spec/phone-signup-flow.txt`).
    public let signup: SignupClient
    /// The wallet's second factors: passkeys, an authenticator app, recovery codes.
    public let factors: FactorsClient
    let api: Client
    let signer: DPoPSigner
    let vault: SessionVault
    let statistics: LoginStatisticsRecorder
    let logger: SDKLogger
    /// Reads the stored session again when protected data becomes available; ends with the client.
    private let protectedDataFollower: Task<Void, Never>

    /// Builds the client; make one for the app's lifetime.
    /// - Parameters:
    ///   - context: the app's identity towards the server (`PDPaydiantContext`).
    ///   - transport: how requests reach the server (`defaultTransport()`: URLSession with no disk cache; inject any
    ///     `ClientTransport`, e.g. for tests).
    ///   - storage: where session, device token and device key are kept: by default the Keychain
    ///     where there is one (`defaultCredentialStorage()`), memory elsewhere.
    ///   - now: the clock (e.g. whether the stored device token has expired). Proofs are signed on
    ///     the server's time once a proof was refused for this clock's (`Date` of the refusal).
    ///   - reinstall: how a first launch after an installation is told, whose earlier session is
    ///     dropped (`ReinstallDetection`): by default a marker file in the app's container on
    ///     Apple platforms; pass `.markerFile(in:)` with a directory of the App Group's container
    ///     when extensions share the Keychain, `.off` for storages that do not outlive the app.
    ///   - protectedData: the moments the stored session is read again while it could not be read
    ///     (``AuthenticationState/unknown``, a launch before the first unlock): by default UIKit's
    ///     protected-data-available and did-become-active notifications where UIKit exists.
    ///   - logHandler: where the SDK's log entries go (calls' answers, logins' outcomes); none by
    ///     default.
    ///   - locationProvider: the coordinates for log entries when `context.locationLoggingEnabled`.
    public init(context: LatchkeyContext, transport: any ClientTransport = LatchkeyClient.defaultTransport(),
                storage: any CredentialStorage = defaultCredentialStorage(), now: @escaping @Sendable () -> Date = Date.init,
                reinstall: ReinstallDetection = .automatic, protectedData: ProtectedDataSignal = .automatic,
                logHandler: (any LatchkeyLogHandler)? = nil, locationProvider: (any LatchkeyLocationProvider)? = nil) {
        self.context = context
        let logger = SDKLogger(handler: logHandler, locationProvider: locationProvider,
                               locationEnabled: context.locationLoggingEnabled, now: now)
        let vault = SessionVault(storage: storage, reinstall: reinstall, logger: logger)
        self.vault = vault
        self.protectedDataFollower = vault.follow(protectedData)
        let signer = DPoPSigner(storage: storage, now: now)
        self.signer = signer
        // The server's encryption settings are read through this same client the first time a call
        // carries a credential (the sealer is one of the client's middlewares, so it gets the client late).
        let client = LateBound<Client>()
        let sealer = CredentialSealer(app: EncryptionSettings(spec: context.encryptionSettings), pins: context.sealKeyPins,
                                      now: now) {
            try await client.value.retrieveEncryptionSettings().ok.body.json
        }
        // Outermost first: the session middleware sets the token the DPoP middleware then proves.
        let api = Client(serverURL: context.serverURL, transport: transport,
                         middlewares: [LoggingMiddleware(logger: logger), AppContextMiddleware(context: context), ErrorEnvelopeMiddleware(),
                                       SessionMiddleware(vault: vault), DPoPMiddleware(signer: signer, sealer: sealer)])
        self.api = api
        client.set(api)
        let recorder = LoginStatisticsRecorder(enabled: context.collectStatistics, batchSize: context.statisticsBatchSize,
                                               storage: storage)
        self.statistics = recorder
        self.logger = logger
        let observer = LoginObserver(recorder: recorder, logger: logger, api: api, context: context)
        self.enrollment = EnrollmentClient(context: context, api: api)
        self.authentication = AuthenticationClient(context: context, api: api, vault: vault, signer: signer, now: now,
                                                   observer: observer)
        self.signup = SignupClient(context: context, api: api, vault: vault, signer: signer, storage: storage)
        self.factors = FactorsClient(context: context, api: api)
    }

    deinit { protectedDataFollower.cancel() }
}

extension LatchkeyClient {
    /// How the SDK's default transport's `URLSession` is configured. Ephemeral (Apple: it "doesn't
    /// store caches, credential stores, or any session-related data to disk"), and with no URL
    /// cache at all (`urlCache = nil`: "to disable caching, set this property to nil"), so no answer
    /// (a profile, a field the issuer marks `storageRestricted`) is written to an HTTP cache,
    /// whatever headers a proxy leaves on it. No cookie or credential store either: the SDK
    /// authenticates with its own headers, and nothing of a signed-out session stays in memory. A
    /// request gives up after 60 seconds in all, not the default 7 days a trickling answer allows.
    public static var defaultSessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.timeoutIntervalForResource = 60
        return configuration
    }

    /// The default transport: URLSession with `defaultSessionConfiguration`.
    public static func defaultTransport() -> URLSessionTransport {
        URLSessionTransport(configuration: .init(session: URLSession(configuration: defaultSessionConfiguration)))
    }

    /// The RFC 7638 thumbprint of this installation's device key: how the server knows the device
    /// (device lists show it; the server names the device `jkt:<thumbprint>`). Creates the key on
    /// first use. Throws when the stored key cannot be read.
    public func deviceThumbprint() async throws -> String {
        try await signer.deviceKey().thumbprint
    }

    /// Replaces this installation's device key with a new one: the way out when the stored key
    /// cannot be restored (every call then fails with `.storage` / `.deviceKey`), or when the app
    /// wants this phone unlinked. The session is signed out here (it is bound to the old key; it
    /// ends on the server by its idle timeout) and the device token and certificate are dropped.
    /// The next login from this device is from an unlinked device: the user answers an MFA
    /// question (`LoginResult.mfaRequired`), and the device list shows a new device.
    /// Calls made while it runs wait for the new key; a reset asked for while one runs answers
    /// that one's key.
    /// - Returns: the new key's thumbprint.
    /// - Throws: `LatchkeyError` `.storage` when the storage cannot be written.
    @discardableResult
    public func resetDeviceKey() async throws(LatchkeyError) -> String {
        do {
            await vault.discard()
            try await vault.setDeviceToken(nil)
            return try await signer.replaceKey().thumbprint
        } catch {
            throw LatchkeyError.storage(error)
        }
    }
}

/// Adds the app context headers of `PDPaydiantContext` and the customer's languages (`Accept-Language`) to every request.
struct AppContextMiddleware: ClientMiddleware {
    let context: LatchkeyContext
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[HTTPField.Name("X-Application-Signature")!] = context.applicationSignature
        request.headerFields[HTTPField.Name("X-Device-ID")!] = context.deviceID
        request.headerFields[HTTPField.Name("X-Device-Type")!] = context.deviceTypeID
        request.headerFields[HTTPField.Name("X-App-Version")!] = context.applicationVersion
        request.headerFields[HTTPField.Name("X-SDK-Version")!] = context.paydiantSDKVersion
        if let languages = context.acceptLanguage { request.headerFields[.acceptLanguage] = languages }
        return try await next(request, body, baseURL)
    }
}

/// A refusal read from the server's error envelope.
struct ServerRefusal: Error {
    let httpStatus: Int
    let body: Components.Schemas.ErrorBody
    /// The answer's `Retry-After`, in seconds.
    var retryAfter: Int? = nil
}

/// Reads the error envelope of any non-2xx answer and throws it, so the façade sees one error shape.
struct ErrorEnvelopeMiddleware: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws
        -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.kind != .successful else { return (response, responseBody) }
        var data = Data()
        if let responseBody { data = try await Data(collecting: responseBody, upTo: 1024 * 1024) }
        throw ServerRefusal(httpStatus: response.status.code, body: Self.errorBody(data, status: response.status),
                            retryAfter: response.headerFields[.retryAfter].flatMap { Int($0) })
    }

    /// The error of any envelope: Latchkey's, Kratos's (`reason` is the message), or a Kratos flow
    /// answered again with messages (id `kratos_<message id>`, the node's name as field).
    static func errorBody(_ data: Data, status: HTTPResponse.Status) -> Components.Schemas.ErrorBody {
        // The contract's own types: Kratos's error, Latchkey's envelope, Kratos's flow (its dates
        // are RFC 3339, as the server's transcoder writes them).
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        if let kratos = try? decoder.decode(Components.Schemas.KratosError.self, from: data) {
            return .init(code: kratos.error.code, id: kratos.error.id, message: kratos.error.reason)
        }
        if let envelope = try? decoder.decode(Components.Schemas.ErrorResponse.self, from: data) { return envelope.error }
        if let flow = try? decoder.decode(Components.Schemas.SelfServiceFlow.self, from: data) {
            let messages = flow.ui.messages.map { (field: String?.none, message: $0) }
                + flow.ui.nodes.flatMap { node in node.messages.map { (field: Optional(node.attributes.name), message: $0) } }
            if let first = messages.first {
                return .init(code: status.code, id: "kratos_\(first.message.id)",
                             message: messages.map(\.message.text).joined(separator: " "), field: first.field)
            }
        }
        return .init(code: status.code, id: "http_\(status.code)", message: status.reasonPhrase)
    }
}

/// A value set once, right after it is made, for a closure made before it.
final class LateBound<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value { lock.withLock { stored! } }
}
