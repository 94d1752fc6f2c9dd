import Foundation

/// A self-service flow (Kratos-style registration or login), with the phone verification of a
/// registration: the one-time code is kept only as a digest, with its attempt and send counts.
public struct FlowRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case registration, login }
    public var id: String
    public var issuer: String
    public var kind: Kind
    public var requestURL: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    public var phone: String?
    public var phoneVerifiedAt: Date?
    public var otpDigest: String?
    public var otpExpiresAt: Date?
    public var otpAttempts: Int
    public var otpSends: Int
    public var otpSentAt: Date?

    public init(id: String, issuer: String, kind: Kind, requestURL: String, createdAt: Date, expiresAt: Date,
                usedAt: Date? = nil, phone: String? = nil, phoneVerifiedAt: Date? = nil, otpDigest: String? = nil,
                otpExpiresAt: Date? = nil, otpAttempts: Int = 0, otpSends: Int = 0, otpSentAt: Date? = nil) {
        self.id = id
        self.issuer = issuer
        self.kind = kind
        self.requestURL = requestURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.phone = phone
        self.phoneVerifiedAt = phoneVerifiedAt
        self.otpDigest = otpDigest
        self.otpExpiresAt = otpExpiresAt
        self.otpAttempts = otpAttempts
        self.otpSends = otpSends
        self.otpSentAt = otpSentAt
    }
}

/// A client certificate issued for a device key.
public struct DeviceCertificateRecord: Sendable, Equatable {
    public var serial: String
    public var userID: String
    public var deviceID: String
    public var publicKey: String
    public var certificatePEM: String
    public var createdAt: Date
    public var expiresAt: Date
    /// When the certificate was revoked (replaced, or its device unlinked or deactivated, or the
    /// wallet's password reset).
    public var revokedAt: Date?

    public init(serial: String, userID: String, deviceID: String, publicKey: String, certificatePEM: String,
                createdAt: Date, expiresAt: Date, revokedAt: Date? = nil) {
        self.revokedAt = revokedAt
        self.serial = serial
        self.userID = userID
        self.deviceID = deviceID
        self.publicKey = publicKey
        self.certificatePEM = certificatePEM
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The limits a code send is checked against, atomically.
public struct OTPSendLimits: Sendable, Equatable {
    /// Seconds that must pass between two sends for one flow.
    public var interval: TimeInterval
    /// Sends one flow may make.
    public var maxSends: Int
    public init(interval: TimeInterval, maxSends: Int) {
        self.interval = interval
        self.maxSends = maxSends
    }
}

/// What phone sign-up and the Kratos-style flows need from the database.
public protocol SignupStore: AuditingStore {
    /// Stores a new flow.
    func createFlow(_ flow: FlowRecord) async throws
    /// The flow with this id, whatever its state.
    func flow(id: String) async throws -> FlowRecord?
    /// Records a new code for a live, unused registration flow together with its SMS, atomically
    /// under `limits`: answers false (sending nothing) when the flow is not live or a limit is hit.
    /// A new phone number clears an earlier verification; the attempt count is never reset.
    func recordOTP(flowID: String, phone: String, digest: String, expiresAt: Date, limits: OTPSendLimits,
                   message: OutboxMessage, now: Date) async throws -> Bool
    /// Counts one code attempt on a live flow with a code, atomically: answers the flow with its
    /// new count, or nil when it is not live, has no code, or already has `limit` attempts.
    func reserveOTPAttempt(flowID: String, now: Date, limit: Int) async throws -> FlowRecord?
    /// Marks the flow's phone verified and uses its code up.
    func markPhoneVerified(flowID: String, now: Date) async throws
    /// Completes a registration flow in one transaction: uses the flow (which must be live, unused
    /// and phone-verified: else `StoreError.flowNotUsable`), creates the user (`phoneInUse`,
    /// `emailInUse`), links the device, starts the session and stores the tokens and messages.
    func completeRegistration(flowID: String, user: UserRecord, deviceID: String?, session: SessionRecord,
                              tokens: [TokenRecord], messages: [OutboxMessage], now: Date) async throws
    /// Uses a live login flow up; answers false when it is not live.
    func useFlow(id: String, kind: FlowRecord.Kind, now: Date) async throws -> Bool
    /// Revokes a session only when it is unbound or `provenKey` is the key it is bound to, in one
    /// statement (a copied bound token without its key ends nothing); says what it found.
    func revokeSession(digest: String, provenKey: String?, now: Date) async throws -> SessionRevocation
    /// Registers a device key in one transaction: links the certificate's device (the key) to its
    /// wallet (`StoreError.deviceKeyInUse` when another wallet has it), revokes the device's earlier
    /// certificates, stores this one, and binds the session `sessionDigest` to the key and device,
    /// lifting a sign-up session's limits.
    func registerDeviceKey(_ certificate: DeviceCertificateRecord, label: String?, deviceType: String?,
                           sessionDigest: String, keyThumbprint: String) async throws
    /// The certificate with this serial (hex), whatever its state.
    func deviceCertificate(serial: String) async throws -> DeviceCertificateRecord?
    /// The certificates issued to a user's device, newest first.
    func deviceCertificates(userID: String, deviceID: String) async throws -> [DeviceCertificateRecord]
}

/// What a logout by token found (`SignupStore.revokeSession(digest:provenKey:now:)`).
public enum SessionRevocation: Sendable, Equatable {
    /// The session was live and is revoked now.
    case revoked
    /// The session had been revoked before.
    case alreadyRevoked
    /// A live session bound to another key than the request proved (or to a key, without a proof):
    /// nothing changed.
    case boundToAnotherKey
    /// No session has this token.
    case unknown
}
