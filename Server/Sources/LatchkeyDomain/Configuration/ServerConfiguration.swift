import Foundation
import LatchkeyCore

/// The whole server configuration: the YAML file of DESIGN §9 plus where to listen and store.
///
/// Every setting has a default, so an empty file (or none) is a working development server.
public struct ServerConfiguration: Codable, Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var database = "sqlite:./latchkey.sqlite"
    /// How long one PostgreSQL call may take; past it (an outage) the request answers 503
    /// `not_ready` with `Retry-After` instead of hanging.
    public var databaseTimeoutMilliseconds = 1000
    /// How long a SIGTERM may take: requests in flight get this long, then the server stops.
    public var shutdownGraceSeconds = 10
    /// The base URL that links in emails point to; derived from host and port when unset.
    public var publicURL: String?
    public var courier = CourierSettings()
    /// The languages of the portal's pages and of the wallet API's messages.
    public var languages = LanguageSettings()
    public var hashing = HashingSettings()
    public var rateLimits = RateLimitSettings()
    public var secrets = SecretSettings()
    public var http = HTTPSettings()
    public var issuer = IssuerSettings()
    public var audit = AuditSettings()
    public var admin = AdminSettings()
    public var telemetry = TelemetrySettings()

    public init() {}

    /// The base URL for links in messages.
    public var resolvedPublicURL: String { publicURL ?? "http://\(host):\(port)" }
}

/// The audit trail (`audit_events`).
public struct AuditSettings: Codable, Sendable, Equatable {
    /// How long events are kept; older ones are deleted every hour. 0 keeps them forever.
    public var retentionDays = 365
    public init() {}
}

/// The memory-hard hash for passwords, passcodes and answers (DESIGN §6).
public struct HashingSettings: Codable, Sendable, Equatable {
    public var algorithm = "scrypt"
    public var logN = 15
    public var r = 8
    public var p = 3
    /// The longest an operation may expect to wait for its hashes (queue and hashing); beyond it
    /// the request is refused at once with 503 `overloaded` and `Retry-After` (`HashGate`).
    public var maxQueueMilliseconds = 2000
    public init() {}
    public init(logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }
}

/// Request limits per IP and per account.
public struct RateLimitSettings: Codable, Sendable, Equatable {
    /// Where the limits are counted: `auto` (the database on PostgreSQL, so replicas share them;
    /// memory on SQLite), `memory` (per process) or `database`.
    public enum Counting: String, Codable, Sendable { case auto, memory, database }
    public var enabled = true
    public var counting = Counting.auto
    public var requestsPerMinutePerIP = 300
    public var credentialAttemptsPerMinutePerAccount = 10
    public init() {}
}

/// Where the server-side secrets live. `LATCHKEY_PEPPER` (base64) overrides the file.
public struct SecretSettings: Codable, Sendable, Equatable {
    public var pepperFile = ".latchkey/pepper"
    /// The device-certificate CA's P-256 private key (PEM), created on first start.
    public var caKeyFile = ".latchkey/ca-key.pem"
    /// The CA's self-signed certificate (PEM), created with the key.
    public var caCertificateFile = ".latchkey/ca-cert.pem"
    /// Peppers of before a rotation (files like `pepperFile`; `LATCHKEY_PREVIOUS_PEPPERS`, base64,
    /// comma-separated, takes precedence): hashes made with them still verify and are made again
    /// with the current pepper at their next check; outbox messages sealed with them still open.
    public var previousPepperFiles: [String] = []
    /// The HPKE private key (P-256, PEM) that sealed credentials are opened with
    /// (`issuer.encryption`); written by `latchkey secrets generate` (and on a first start on
    /// SQLite). Every replica needs the same one (its fingerprint is kept in the database).
    public var sealKeyFile = ".latchkey/seal-key.pem"
    /// Keys of before a rotation and until when seals to them still open (ISO 8601), e.g.
    /// `[{ file: .latchkey/seal-key-2026-11.pem, until: "2026-12-08T00:00:00Z" }]`.
    public var previousSealKeys: [PreviousSealKey] = []
    public init() {}
}

/// A seal key of before a rotation.
public struct PreviousSealKey: Codable, Sendable, Equatable {
    public var file: String
    /// Seals to this key are refused after this instant (ISO 8601).
    public var until: String
    public init(file: String, until: String) {
        self.file = file
        self.until = until
    }
}

/// The admin API (`/admin/v1`, operators' API keys): off unless enabled; served on its own
/// listener, loopback only by default, and on the public port only when `onPublicPort` says so.
public struct AdminSettings: Codable, Sendable, Equatable {
    /// The console's address: `consoleURL`, else where the admin API answers.
    public func resolvedConsoleURL(publicURL: String) -> String {
        if let consoleURL { return consoleURL.hasSuffix("/") ? String(consoleURL.dropLast()) : consoleURL }
        return onPublicPort ? publicURL : "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    public var enabled = false
    public var host = "127.0.0.1"
    /// The admin listener's port; 0 picks a free one (tests).
    public var port = 8081
    /// Answer `/admin/v1` on the public port instead of a listener of its own (only behind a
    /// proxy that guards it).
    public var onPublicPort = false
    /// Calls per key per minute (then 429 with `Retry-After`); like every limit, off with `rateLimits.enabled: false`.
    public var requestsPerMinutePerKey = 600
    /// The largest body of an import (`POST /admin/v1/users/import`), read as it arrives: the
    /// request body limit (`http.maxBodyBytes`) does not apply to it.
    public var importMaxBytes = 268_435_456
    /// The operator console (`/console`) beside the admin API.
    public var console = true
    /// Where operators reach the console, for the setup links `latchkey operators create` prints
    /// (nil: the admin listener's address, or `publicURL` with `onPublicPort`). With `https:` (or a
    /// `publicURL` of `https:` on the public port) the console's cookies are `Secure` and `__Host-`.
    public var consoleURL: String?
    public init() {}
}

/// HTTP limits.
public struct HTTPSettings: Codable, Sendable, Equatable {
    public var maxBodyBytes = 65_536
    /// The proxies (CIDRs) whose `X-Forwarded-For` is believed: the client is the rightmost entry
    /// that is not one of them. Empty (the default): the header is ignored.
    public var trustedProxies: [String] = []
    /// `/metrics`: off, or only for a scraper that sends `Authorization: Bearer <metricsToken>`.
    public var metricsEnabled = true
    public var metricsToken: String?
    public init() {}
}

/// The wallet issuer's rules, with the spec's names (DESIGN §9).
public struct IssuerSettings: Codable, Sendable, Equatable {
    public var id = "default"
    public var name = "Latchkey Wallet"
    public var password = PasswordConfigurations.default
    public var passcode = PasscodeConfigurations.default
    public var mfa = MFASettings()
    /// The second factors beside the questions: what may be enrolled and what each prompt accepts.
    public var factors = FactorSettings()
    /// The relying party of passkeys and the app-association documents.
    public var passkeys = PasskeySettings()
    public var emailVerificationRequired = true
    public var appInstanceVerificationSeconds = 600
    public var passwordExpiryDays = 0
    public var passwordHistory = 5
    /// Refuse passwords on the common-password list (`CommonPasswords`, 419), on every path that
    /// sets one. Off only for a deployment that must accept the spec's example password `000000`.
    public var rejectCommonPasswords = true
    /// Verification emails (resends) and reset emails each per address per hour and requesting
    /// client address (always on, counted in the database for known and unknown addresses alike),
    /// so a stranger's requests do not spend the owner's.
    public var maxEmailsPerAddressPerHour = 3
    /// The same emails per address per hour from all clients together: the cap a stranger with
    /// many addresses meets.
    public var maxEmailsPerAddressPerHourAllClients = 20
    public var lockout = LockoutSettings()
    public var deviceAuthentication = DeviceAuthenticationSettings()
    /// How the wallet API knows a device: by the key of its DPoP proof (`required`), or, for
    /// requests without a proof, by the `X-Device-ID` header (`optional`, weaker, for
    /// migrating apps). A request with a proof is always bound to its key.
    public var deviceBinding = DeviceBindingMode.required
    public var otp = OTPSettings()
    public var sessions = SessionSettings()
    public var reset = ResetSettings()
    public var registration = RegistrationSettings()
    public var signup = SignupSettings()
    public var identityProviders: [IdentityProviderSettings] = []
    /// The spec's `encryptionSettings`: which credential values must travel sealed. (How MFA
    /// answers compare, `kCaseInsensitiveMFASecretAnswer`, is `mfa.caseInsensitiveAnswers`, and is
    /// published with these.)
    public var encryption = SealingSettings()
    /// The apps' login statistics (the spec's `collectStatistics`).
    public var statistics = StatisticsSettings()
    /// The issuer's field metadata over the spec's defaults (`PDMetaData`): per group
    /// (`userProfile`, `contactInformation`, `addressInformation`, `additionalCustomerInformation`)
    /// and key, the properties to change (`fieldMetadata()`).
    public var fields: [String: [String: FieldOverride]] = [:]
    public init() {}

    /// The settings an app reads (`kEncryptPin`, `kEncryptPassword`, `kEncryptMFASecretAnswer`,
    /// `kCaseInsensitiveMFASecretAnswer`).
    public var encryptionSettings: EncryptionSettings {
        EncryptionSettings(pin: encryption.pin, password: encryption.password, mfaAnswers: encryption.mfaAnswers,
                           caseInsensitiveMFAAnswers: mfa.caseInsensitiveAnswers)
    }

    /// The consecutive-failure thresholds.
    public var attemptLimits: AttemptLimits { AttemptLimits(wallet: lockout.walletThreshold, device: lockout.deviceThreshold) }

    /// The rules registration is checked against.
    public var enrollmentRules: EnrollmentRules {
        // `fields` were checked when the configuration was loaded (`validate`).
        EnrollmentRules(password: password, passcode: passcode, mfa: mfa.questionsResponse,
                        metadata: (try? fieldMetadata(checking: false)) ?? .default)
    }
}

/// Whether the server takes the apps' login statistics, and how long it keeps them.
public struct StatisticsSettings: Codable, Sendable, Equatable {
    public var enabled = true
    /// Days of counts kept; older days are deleted hourly.
    public var retentionDays = 90
    public init() {}
}

/// Which credential values the issuer requires sealed (`issuer.encryption`); all off by default.
public struct SealingSettings: Codable, Sendable, Equatable {
    public var pin = false
    public var password = false
    public var mfaAnswers = false
    public init() {}
}

/// The issuer's MFA pool and requirement.
public struct MFASettings: Codable, Sendable, Equatable {
    public struct Question: Codable, Sendable, Equatable {
        public var mfaQuestion: String
        public var isMandatory = false
        public init(_ text: String, isMandatory: Bool = false) {
            self.mfaQuestion = text
            self.isMandatory = isMandatory
        }
    }
    public var numberOfRequiredQuestions = 3
    public var caseInsensitiveAnswers = true
    /// How long a wallet is asked the same MFA question (by every device and reset link) before a
    /// new one may be drawn; a right answer draws anew at the next prompt.
    public var questionRotationHours = 24
    public var questions: [Question] = MFASettings.defaultPool
    public init() {}

    /// The response of `retrieveMfaQuestionsWithMetadata`.
    public var questionsResponse: MFAQuestions {
        MFAQuestions(numberOfRequiredQuestions: numberOfRequiredQuestions,
                     questions: questions.map { MFAQuestionWithMetadata(mfaQuestion: $0.mfaQuestion, isMandatory: $0.isMandatory) })
    }

    /// The form in which an MFA answer is hashed and compared: trimmed, and lower-cased when
    /// the issuer's answers are case-insensitive.
    public func normalize(_ answer: String) -> String {
        let trimmed = answer.trimmingCharacters(in: Blanks.spacesAndNewlines)
        return caseInsensitiveAnswers ? trimmed.lowercased() : trimmed
    }

    /// Twelve questions in the spirit of the spec's "typical variety is between 10 and 15".
    public static let defaultPool: [Question] = [
        "What was the name of your first pet?", "In what city were you born?",
        "What is your mother's maiden name?", "What was the make of your first car?",
        "What was the name of your elementary school?", "What is the name of the street you grew up on?",
        "What was your childhood nickname?", "What is your favorite book?",
        "In what city did your parents meet?", "What was the first concert you attended?",
        "What is the middle name of your oldest sibling?", "What was your first job?",
    ].map { Question($0) }
}

/// Consecutive-failure thresholds. Failures from the wallet's linked devices (and its sessions)
/// follow the spec: 421 at `walletThreshold`, 423 per device at `deviceThreshold`. Failures from
/// devices not linked to the wallet lock out unlinked devices only, for a while (smart lockout).
public struct LockoutSettings: Codable, Sendable, Equatable {
    public var walletThreshold = 5
    public var deviceThreshold = 10
    /// Failed passwords or MFA answers from unlinked devices that start a temporary lockout.
    public var unlinkedThreshold = 5
    /// The first temporary lockout's length; each further one within a day doubles it.
    public var temporarySeconds = 900
    /// The longest temporary lockout.
    public var maxTemporarySeconds = 86_400
    public init() {}

    /// How long the `lockouts`-th temporary lockout in a row lasts (1 is the first).
    public func temporaryLockout(number lockouts: Int) -> Int {
        let doublings = min(max(lockouts - 1, 0), 30)
        return min(temporarySeconds << doublings, maxTemporarySeconds)
    }
}

/// Session lifetimes: idle (since the last use) and absolute (since login).
public struct SessionSettings: Codable, Sendable, Equatable {
    public var idleTimeoutSeconds = 1800
    public var absoluteTimeoutSeconds = 43_200
    /// How long after its login a session may change email, MFA answers, PIN or password, unlink a
    /// device or create a device token (Kratos's `privileged_session_max_age`); later: 403
    /// `session_refresh_required`, log in again.
    public var privilegedSeconds = 900
    public init() {}
}

/// Long-lived device tokens.
/// `issuer.deviceBinding`.
public enum DeviceBindingMode: String, Codable, Sendable, Equatable {
    case required, optional
}

public struct DeviceAuthenticationSettings: Codable, Sendable, Equatable {
    public var enabled = true
    public var lifetimeDays = 90
    public init() {}
}

/// Forgotten-password and forgotten-passcode resets.
public struct ResetSettings: Codable, Sendable, Equatable {
    /// How long a reset link works.
    public var linkLifetimeMinutes = 30
    /// Answer every reset request like one for a known address, instead of the spec's 410 for an
    /// unknown one (against account enumeration).
    public var uniformAnswers = false
    /// Answers to reset questions an account gets per `answerWindowMinutes`, across all its links
    /// (counted before each check; a right one is given back); one link also stops after this many
    /// wrong ones. Each wrong one also counts toward the wallet's lockout.
    public var maxAnswerAttempts = 3
    public var answerWindowMinutes = 1440
    public init() {}
}

/// Self-registration (`registerNewUser`, SSO's `registerCustomer`).
public struct RegistrationSettings: Codable, Sendable, Equatable {
    /// How long an unverified registration lives (with `emailVerificationRequired`): until its link
    /// is opened it reserves nothing (another registration of the address replaces it), and after
    /// this it is deleted.
    public var unverifiedHours = 72
    public init() {}
}

/// One-time codes sent by SMS.
public struct OTPSettings: Codable, Sendable, Equatable {
    public var length = 6
    public var lifetimeSeconds = 300
    public var maxAttempts = 5
    /// Seconds between two codes for one flow (a resend does not reset the attempt count).
    public var resendIntervalSeconds = 30
    /// Codes one flow may send.
    public var maxSendsPerFlow = 5
    /// Codes sent to one phone number per minute, across flows (with `rateLimits.enabled`).
    public var maxSendsPerMinutePerNumber = 3
    /// Codes requested from one client IP per minute, across flows (with `rateLimits.enabled`).
    public var maxSendsPerMinutePerIP = 10
    /// Wrong codes one phone number may take per hour, across all flows (always on).
    public var maxWrongCodesPerNumberPerHour = 10
    /// SMS the issuer sends per hour in all, against SMS pumping (always on).
    public var maxSmsPerHour = 1000
    public init() {}
}

/// Self-service (Kratos-style) registration and login flows.
public struct SignupSettings: Codable, Sendable, Equatable {
    /// How long a flow can be completed.
    public var flowLifetimeMinutes = 60
    public init() {}
}

/// An external OpenID Connect provider.
public struct IdentityProviderSettings: Codable, Sendable, Equatable {
    public var id: String
    public var issuer: String
    public var clientId: String
    public var clientSecret: String?
    public var redirectUri: String
    /// Seconds each call to the provider may take (default 5).
    public var timeoutSeconds: Int?

    public init(id: String, issuer: String, clientId: String, clientSecret: String?, redirectUri: String,
                timeoutSeconds: Int? = nil) {
        self.id = id
        self.issuer = issuer
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectUri = redirectUri
        self.timeoutSeconds = timeoutSeconds
    }
}
