import Foundation

/// A wallet's standing: `deactivated` by consecutive failures (421) or by an operator.
public enum UserStatus: String, Sendable, Codable, CaseIterable {
    case active, deactivated
}

/// A linked device's standing: `deactivated` by consecutive failures (423) or an operator,
/// `suspended` by an operator (503).
public enum DeviceStatus: String, Sendable, Codable, CaseIterable {
    case active, deactivated, suspended
}

/// A wallet user as stored. Credentials are hashes; the address and additional information
/// are kept as one JSON document.
public struct UserRecord: Sendable, Equatable {
    public var id: String
    public var issuer: String
    public var email: String
    public var emailNormalized: String
    public var firstName: String?
    public var lastName: String?
    public var phone: String?
    public var externalId: String?
    public var passwordHash: String?
    public var passcodeHash: String?
    public var emailVerified: Bool
    public var status: UserStatus
    public var profileJSON: String
    public var createdAt: Date
    public var updatedAt: Date
    /// Consecutive failed credential checks (reserved before each check).
    public var failedAttempts: Int
    /// Whether the registering app instance was verified (nonce login or email link).
    public var appInstanceVerified: Bool
    public var passwordUpdatedAt: Date?
    public var lastLoginAt: Date?
    /// An operator lock: credential changes answer 424.
    public var locked: Bool
    /// The verified E.164 phone number a phone sign-up identity logs in with (unique per issuer).
    public var phoneNormalized: String?
    /// Set while the user is an unverified self-registration (`registerNewUser`, or SSO's
    /// `registerCustomer` without a verified email): it reserves nothing, another registration
    /// of the address replaces it, and it expires at this time. Nil once verified (and for imports).
    public var pendingUntil: Date?
    /// The languages the customer reads, best first, as a header value (`de, en`): the app's
    /// `Accept-Language` at registration, updated at each login that sends another. The messages
    /// about the wallet are written in the best of them the issuer provides.
    public var languages: String?

    /// The recorded languages as a preference.
    public var languagePreference: LanguagePreference { LanguagePreference(acceptLanguage: languages) }

    /// The languages of a message that answers the customer's own request: the request's when it
    /// names any, else the recorded ones.
    public func languagePreference(preferring request: LanguagePreference) -> LanguagePreference {
        request.languages.isEmpty ? languagePreference : request
    }

    /// Whether this is an unverified self-registration: not a wallet yet (no reset link, no
    /// reservation of its address).
    public var isPendingRegistration: Bool { pendingUntil != nil && !emailVerified }

    public init(id: String, issuer: String, email: String, emailNormalized: String, firstName: String?, lastName: String?,
                phone: String?, externalId: String?, passwordHash: String?, passcodeHash: String?, emailVerified: Bool,
                status: UserStatus = .active, profileJSON: String = "{}", createdAt: Date, updatedAt: Date,
                failedAttempts: Int = 0, appInstanceVerified: Bool = false, passwordUpdatedAt: Date? = nil,
                lastLoginAt: Date? = nil, locked: Bool = false, phoneNormalized: String? = nil, pendingUntil: Date? = nil,
                languages: String? = nil) {
        self.pendingUntil = pendingUntil
        self.languages = languages
        self.locked = locked
        self.phoneNormalized = phoneNormalized
        self.failedAttempts = failedAttempts
        self.appInstanceVerified = appInstanceVerified
        self.passwordUpdatedAt = passwordUpdatedAt
        self.lastLoginAt = lastLoginAt
        self.id = id
        self.issuer = issuer
        self.email = email
        self.emailNormalized = emailNormalized
        self.firstName = firstName
        self.lastName = lastName
        self.phone = phone
        self.externalId = externalId
        self.passwordHash = passwordHash
        self.passcodeHash = passcodeHash
        self.emailVerified = emailVerified
        self.status = status
        self.profileJSON = profileJSON
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The hash of one MFA answer.
public struct MFAAnswerRecord: Sendable, Equatable {
    public var question: String
    public var answerHash: String
    public init(question: String, answerHash: String) {
        self.question = question
        self.answerHash = answerHash
    }
}

/// What a single-use token is for.
public enum TokenPurpose: String, Sendable {
    /// The registration nonce that `loginByNonce` consumes.
    case registrationNonce = "registration_nonce"
    /// The token of an email verification link.
    case emailVerification = "email_verification"
    /// The challenge of an MFA prompt; its data is the question asked.
    case mfaChallenge = "mfa_challenge"
    /// The link that confirms a new email address; its data is the new address.
    case emailChange = "email_change"
    /// The link to the old address of an email change that puts it back; its data is the old address.
    case emailRevert = "email_revert"
    /// The link that confirms a held change of fields marked `reverificationRequired`; its data is
    /// the held values (`PendingProfileChange`), encrypted.
    case profileChange = "profile_change"
    /// A forgotten-password link; its data is the MFA question the portal asks.
    case passwordReset = "password_reset"
    /// A forgotten-passcode link; its data is the MFA question the portal asks.
    case passcodeReset = "passcode_reset"
    /// Issued by the portal after a right answer: allows setting the new password once.
    case passwordResetGrant = "password_reset_grant"
    /// Issued by the portal after a right answer: allows setting the new passcode once.
    case passcodeResetGrant = "passcode_reset_grant"
}

/// A single-use token, stored only as its SHA-256 digest.
public struct TokenRecord: Sendable, Equatable {
    public var digest: String
    public var purpose: TokenPurpose
    public var userID: String
    public var deviceID: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// What the token carries besides its owner (the question of an MFA challenge).
    public var data: String?
    /// Wrong answers given against this token so far (reset links).
    public var attempts: Int

    public init(digest: String, purpose: TokenPurpose, userID: String, deviceID: String?, createdAt: Date,
                expiresAt: Date, usedAt: Date? = nil, data: String? = nil, attempts: Int = 0) {
        self.data = data
        self.attempts = attempts
        self.digest = digest
        self.purpose = purpose
        self.userID = userID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// An email or SMS waiting in the outbox. Its body and template data are sealed (encrypted with
/// a key derived from the pepper), because they carry links and codes.
public struct OutboxMessage: Sendable, Equatable {
    public var id: String
    public var channel: String
    public var recipient: String
    public var template: String
    public var subject: String
    public var sealedPayload: String?
    public var createdAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    public var deliveredAt: Date?
    public var failedAt: Date?
    public var lastError: String?

    public init(id: String, channel: String, recipient: String, template: String, subject: String, sealedPayload: String?,
                createdAt: Date, attempts: Int = 0, nextAttemptAt: Date, deliveredAt: Date? = nil,
                failedAt: Date? = nil, lastError: String? = nil) {
        self.id = id
        self.channel = channel
        self.recipient = recipient
        self.template = template
        self.subject = subject
        self.sealedPayload = sealedPayload
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
        self.failedAt = failedAt
        self.lastError = lastError
    }
}

/// Refusals of the store that the domain acts on.
public enum StoreError: Error, Sendable, Equatable {
    /// Another user of the issuer has this email address (the unique index refused it).
    case emailInUse
    /// Another user of the issuer signed up with this phone number (the unique index refused it).
    case phoneInUse
    /// The flow is unknown, expired, already used, or its phone is not verified.
    case flowNotUsable
    /// The federation nonce is unknown, expired or already used.
    case nonceNotUsable
    /// Another wallet is already linked to this provider subject.
    case subjectLinked
    /// Another wallet is already linked to this device key.
    case deviceKeyInUse
    /// A stored row cannot be read as its record: a missing column, a NULL where a value is
    /// required, a value of the wrong type or an unknown enum value.
    case undecodableRow(column: String, reason: String)
    /// A stored document (the profile's JSON) cannot be decoded; nothing is changed.
    case undecodableDocument(String)
}
