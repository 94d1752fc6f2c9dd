import Foundation

/// A wallet's passkeys (`passkeys` table): their public keys, sign counts and names; and the
/// challenges of the passkey ceremonies (`webauthn_challenges`), each accepted once.
public protocol PasskeyStore: AuditingStore {
    /// Stores a registered passkey and enqueues `messages` (the owner's security notice) in the
    /// same transaction.
    /// - Throws: `PasskeyStoreError.credentialInUse` when a passkey (of any wallet) has the credential id.
    func addPasskey(_ passkey: PasskeyRecord, messages: [OutboxMessage]) async throws
    /// The wallet's passkeys, oldest first.
    func passkeys(userID: String) async throws -> [PasskeyRecord]
    /// The passkey of a credential id, whichever wallet it belongs to.
    func passkey(credentialID: Data) async throws -> PasskeyRecord?
    /// Renames the wallet's passkey `id`; nil when the wallet has no such passkey.
    func renamePasskey(id: String, userID: String, name: String) async throws -> PasskeyRecord?
    /// Records a verified assertion: the new counter, backup state and time of use, only while
    /// the stored counter is still `expectedSignCount` (compare-and-set), so of two replicas
    /// accepting assertions with the same counter one wins. False when the counter moved on.
    func usePasskey(id: String, expectedSignCount: UInt32, signCount: UInt32, backedUp: Bool, now: Date) async throws -> Bool
    /// Stores a ceremony's challenge (by digest). Expired challenges are dropped now and then.
    func createPasskeyChallenge(_ challenge: PasskeyChallengeRecord) async throws
    /// Takes the live challenge of `digest` and `purpose` away and answers it; nil when it is
    /// unknown, of another purpose, expired or already taken: one request across every replica
    /// gets it.
    func consumePasskeyChallenge(digest: String, purpose: PasskeyChallengePurpose, now: Date) async throws -> PasskeyChallengeRecord?
}

/// A refusal of the passkey store.
public enum PasskeyStoreError: Error, Sendable, Equatable {
    /// The credential id is registered already (credential ids are unique across wallets).
    case credentialInUse
}

/// A registered passkey: the credential's COSE public key and what the authenticator reported.
public struct PasskeyRecord: Sendable, Equatable {
    /// `pk_` and a UUID.
    public var id: String
    public var userID: String
    public var credentialID: Data
    /// The COSE_Key bytes as registered.
    public var publicKey: Data
    /// The COSE algorithm (-7 ES256, -8 EdDSA).
    public var algorithm: Int
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var aaguid: UUID?
    public var transports: [String]
    /// `none` or `packed`.
    public var attestationFormat: String
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: String, userID: String, credentialID: Data, publicKey: Data, algorithm: Int, signCount: UInt32,
                backupEligible: Bool, backedUp: Bool, aaguid: UUID?, transports: [String], attestationFormat: String,
                name: String, createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.transports = transports
        self.attestationFormat = attestationFormat
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// What a passkey challenge is for.
public enum PasskeyChallengePurpose: String, Sendable {
    /// A registration, bound to the wallet and the session's device.
    case registration = "passkey_registration"
    /// A discoverable login, bound to the device that asked (no wallet yet).
    case login = "passkey_login"
    /// The passkey answer of an MFA prompt, bound to the wallet, the device and the prompt's challenge token.
    case prompt = "passkey_prompt"
}

/// A ceremony's challenge, stored only as the SHA-256 digest of its base64url form.
public struct PasskeyChallengeRecord: Sendable, Equatable {
    public var digest: String
    public var purpose: PasskeyChallengePurpose
    /// The wallet it is for; nil for a discoverable login's.
    public var userID: String?
    public var deviceID: String?
    /// What else binds it: the digest of the MFA prompt's challenge token.
    public var data: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(digest: String, purpose: PasskeyChallengePurpose, userID: String?, deviceID: String?, data: String? = nil,
                createdAt: Date, expiresAt: Date) {
        self.digest = digest
        self.purpose = purpose
        self.userID = userID
        self.deviceID = deviceID
        self.data = data
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
