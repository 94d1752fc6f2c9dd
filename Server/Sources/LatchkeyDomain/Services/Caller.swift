import Foundation

/// Who is calling and from where, resolved once at the edge of a request (`EdgeMiddleware`) and
/// passed as a value to the services that need it: no service reads request state from anywhere
/// else. The web pages make one from their connection.
public struct Caller: Sendable {
    /// Who the caller is: a live session, nobody, or a token that names no live session.
    public var identity = Identity.anonymous
    /// The app's context headers, the device and the client's address.
    public var client = ClientContext()
    /// The request's id as logged and answered (`X-Request-ID`).
    public var requestID: String?
    /// The connection the request came over: the hash gate asks it whether the client is still
    /// there before it hashes (`HashGate`). Nil for a command or the router's test client.
    public var connection: (any ClientConnection)?
    /// The security events of the request or command (`AuditTrail`), written with its changes.
    public var audit: AuditTrail
    /// The hashes the edge reserved for the operation (the operation's `hashes` in its contract policy) before it verified
    /// or recorded anything; the operation's own admission draws on it first.
    package var admission: HashGate.Ticket?

    public init(identity: Identity = .anonymous, client: ClientContext = ClientContext(), requestID: String? = nil,
                connection: (any ClientConnection)? = nil,
                audit: AuditTrail = AuditTrail(actor: .user)) {
        self.audit = audit
        self.identity = identity
        self.client = client
        self.requestID = requestID
        self.connection = connection
    }

    /// The device as the request presents it: the device id (the proven key's name, or the
    /// header's where binding is optional), its type and label, and the proven key itself.
    public var device: DeviceContext {
        DeviceContext(deviceID: client.deviceID, deviceType: client.deviceType, label: client.deviceLabel,
                      provenKey: client.keyThumbprint, software: DeviceSoftware(deviceType: client.deviceType,
                                                                                 applicationVersion: client.appVersion,
                                                                                 sdkVersion: client.sdkVersion))
    }

    /// The RFC 7638 thumbprint of the device key the request's DPoP proof proved, if it sent one.
    public var provenKey: String? { client.keyThumbprint }
}

/// The app context headers of the spec's `PDPaydiantContext` and the client's address.
public struct ClientContext: Sendable {
    public var applicationSignature: String?
    /// The device as the server knows it: `jkt:` and the RFC 7638 thumbprint of the key the
    /// request's DPoP proof proved; without a proof, the `X-Device-ID` header when
    /// `issuer.deviceBinding` is `optional`, else nil.
    public var deviceID: String?
    /// The app's own name for the device (`X-Device-ID`), which decides nothing.
    public var deviceLabel: String?
    /// The app's `deviceTypeId`, `applicationVersion` and `paydiantSDKVersion` (`X-Device-Type`,
    /// `X-App-Version`, `X-SDK-Version`), recorded with the device at each login.
    public var deviceType: String?
    public var appVersion: String?
    public var sdkVersion: String?
    /// The client's IP address (the peer, or the first `X-Forwarded-For` entry when trusted).
    public var clientIP = ClientContext.unknownAddress
    /// The RFC 7638 thumbprint of the device key the request's DPoP proof proved, if it sent one.
    public var keyThumbprint: String?
    /// The languages the customer reads, best first, from the request's `Accept-Language`:
    /// recorded with the wallet at registration and login, and the language of what the request
    /// itself answers or sends. Empty when the request did not say.
    public var languages = LanguagePreference([])

    public init(applicationSignature: String? = nil, deviceID: String? = nil, deviceLabel: String? = nil, deviceType: String? = nil,
                appVersion: String? = nil, sdkVersion: String? = nil, clientIP: String = ClientContext.unknownAddress,
                keyThumbprint: String? = nil) {
        self.sdkVersion = sdkVersion
        self.applicationSignature = applicationSignature
        self.deviceID = deviceID
        self.deviceLabel = deviceLabel
        self.deviceType = deviceType
        self.appVersion = appVersion
        self.clientIP = clientIP
        self.keyThumbprint = keyThumbprint
    }

    /// The address of a client the server could not tell.
    public static let unknownAddress = "unknown"
}

/// The connection a request came over, as the hash gate sees it: whether its client is still
/// there to read an answer. The HTTP layer implements it over the connection's channel.
public protocol ClientConnection: Sendable {
    /// The client's presence, or nil when it cannot be told (the connection is gone too).
    func presence() async -> ClientPresence?
}
