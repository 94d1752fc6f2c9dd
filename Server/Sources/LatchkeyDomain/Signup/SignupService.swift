import Crypto
import Foundation
import LatchkeyCore

/// Phone sign-up (`spec/phone-signup-flow.txt`): Kratos-style registration flows whose phone is
/// verified by a one-time code sent over the courier, then completed with names and a password.
/// Knows no HTTP; refuses with `DomainError` (Kratos ids of the catalogue) or, for forms to correct, `FlowFormError`.
public struct SignupService: Sendable {
    /// Flows, codes, the users they create and the device certificates.
    public typealias Store = UserStore & SessionStore & DeviceStore & SignupStore & WindowCounterStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Builds the SMS and the verification links.
    package let outbox: OutboxWriter
    /// The address flows name in their `request_url`.
    package let publicURL: PublicBaseURL
    /// Whether rate limits are on (the code throttles follow them).
    package let throttle: Throttle
    /// The password login the wallet API shares.
    package let logins: LoginFlow
    /// Opens the limited sessions of registrations.
    package let sessions: SessionIssuer
    /// The key one-time codes are derived with (`otpKey(pepper:)`).
    package let otpKey: SymmetricKey
    package let authority: CertificateAuthority
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date

    /// The key of one-time codes, derived from the pepper.
    package static func otpKey(pepper: SymmetricKey) -> SymmetricKey {
        PepperPurpose.oneTimeCode.key(from: pepper)
    }

    /// A new native (API) flow of `kind`.
    public func createFlow(_ kind: FlowRecord.Kind) async throws -> FlowRecord {
        let time = now()
        let path = kind == .registration ? "/a/self-service/registration/api" : "/a/self-service/login/api"
        let flow = FlowRecord(id: SecureRandom.identifier(), issuer: issuer.id, kind: kind, requestURL: publicURL.value + path,
                              createdAt: time, expiresAt: time.addingTimeInterval(TimeInterval(issuer.signup.flowLifetimeMinutes * 60)))
        try await store.createFlow(flow)
        return flow
    }

    /// The flow with this id when it can still be used for `kind`: 404 unknown, 410 expired or used.
    package func liveFlow(_ id: String, _ kind: FlowRecord.Kind) async throws -> FlowRecord {
        guard UUID(uuidString: id) != nil, let flow = try await store.flow(id: id.lowercased()) else { throw DomainError.flowNotFound }
        if flow.kind != kind { throw DomainError.wrongFlowType }
        if flow.usedAt != nil { throw DomainError.flowUsed }
        if flow.expiresAt <= now() { throw DomainError.flowExpired }
        return flow
    }

    /// Sends a code by SMS for a registration flow (`POST /identity/verification/flow/phone`).
    /// Limited per number, per client IP, and per flow (interval and number of sends). The request's
    /// `phoneType` and `flowType` are the contract's one-value enums (`PRIMARY`, `REGISTRATION`):
    /// decoding refuses any other value (400 naming the field), so nothing here compares them.
    /// The code's SMS is written in the best of `languages`, the request's.
    public func sendCode(flowID: String, phoneNumber: String, clientIP: String, languages: LanguagePreference) async throws {
        let phone = phoneNumber.trimmingCharacters(in: .whitespaces)
        guard PhoneNumber.isValid(phone) else {
            throw DomainError.invalidField("phoneNumber", "Use the E.164 form, for example +439999999999.")
        }
        let flow = try await liveFlow(flowID, .registration)
        let time = now()
        try await throttleSend(phone: phone, clientIP: clientIP, at: time)
        let code = Self.randomCode(length: issuer.otp.length)
        let message = try outbox.otp(to: phone, code: code, languages: languages, at: time)
        let sent = try await store.recordOTP(
            flowID: flow.id, phone: phone, digest: digest(code, flowID: flow.id),
            expiresAt: time.addingTimeInterval(TimeInterval(issuer.otp.lifetimeSeconds)),
            limits: OTPSendLimits(interval: TimeInterval(issuer.otp.resendIntervalSeconds), maxSends: issuer.otp.maxSendsPerFlow),
            message: message, now: time)
        if !sent {
            let current = try await liveFlow(flowID, .registration)
            if current.otpSends >= issuer.otp.maxSendsPerFlow {
                throw DomainError.tooMany("This flow sent all the codes it may. Start a new sign-up.", retryAfter: 60)
            }
            throw DomainError.tooMany("Wait before asking for another code.", retryAfter: issuer.otp.resendIntervalSeconds)
        }
    }

    /// Checks a code (`PATCH /identity/verification/flow/phone`). Each attempt is counted before the
    /// check, atomically; after the last wrong one even the right code is refused.
    public func verifyCode(flowID: String, otp: String) async throws {
        guard !otp.isEmpty, otp.count <= 16 else { throw DomainError.invalidField("otp", "Send the code from the SMS.") }
        let flow = try await liveFlow(flowID, .registration)
        guard flow.otpDigest != nil else { throw flow.phoneVerifiedAt != nil ? DomainError.alreadyVerified : DomainError.noCode }
        let time = now()
        // Wrong codes per number across flows: new flows do not buy new guesses.
        let guesses = "otp-guess:" + (flow.phone ?? flow.id)
        if let until = try await store.hit(guesses, limit: issuer.otp.maxWrongCodesPerNumberPerHour, window: 3600, now: time) {
            throw DomainError.tooMany("Too many wrong codes for this number; try again later.", retryAfter: until.retryAfter(from: time))
        }
        guard let counted = try await store.reserveOTPAttempt(flowID: flow.id, now: time, limit: issuer.otp.maxAttempts) else {
            throw DomainError.attemptsExhausted
        }
        if let expiry = counted.otpExpiresAt, expiry <= time { throw DomainError.codeExpired }
        guard let stored = counted.otpDigest,
              ConstantTime.equal(Data(stored.utf8), Data(digest(otp, flowID: flow.id).utf8)) else {
            let remaining = issuer.otp.maxAttempts - counted.otpAttempts
            throw remaining > 0 ? DomainError.wrongCode(remaining: remaining) : DomainError.attemptsExhausted
        }
        try await store.release(guesses)
        try await store.markPhoneVerified(flowID: flow.id, now: time)
    }

    /// The database throttles of a code send, shared by every replica: per number and per client IP
    /// each minute (with `rateLimits.enabled`), and the issuer's SMS budget per hour (always).
    package func throttleSend(phone: String, clientIP: String, at time: Date) async throws {
        if throttle.settings.enabled {
            for (key, limit) in [("otp-number:" + phone, issuer.otp.maxSendsPerMinutePerNumber),
                                 ("otp-ip:" + clientIP, issuer.otp.maxSendsPerMinutePerIP)] {
                if let until = try await store.hit(key, limit: limit, window: 60, now: time) {
                    throw DomainError.tooMany("Too many codes requested; wait a minute.", retryAfter: until.retryAfter(from: time))
                }
            }
        }
        if let until = try await store.hit("sms:" + issuer.id, limit: issuer.otp.maxSmsPerHour, window: 3600, now: time) {
            throw DomainError.tooMany("No more codes can be sent right now; try again later.", retryAfter: until.retryAfter(from: time))
        }
    }


    /// The keyed digest a code is stored as (a 6-digit code's plain SHA-256 could be reversed).
    package func digest(_ code: String, flowID: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(flowID):\(code)".utf8), using: otpKey)
        return Data(mac).base64EncodedString()
    }

    package static func randomCode(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}
