import Foundation
import LatchkeyCore

/// The enrollment calls that need no login: the issuer's configurations and `registerNewUser`.
/// Knows no HTTP; throws `DomainError` for every refusal.
public struct EnrollmentService: Sendable {
    /// What enrollment reads and writes: users, their tokens, verification state.
    public typealias Store = UserStore & CredentialStore & WindowCounterStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Builds the verification links.
    package let outbox: OutboxWriter
    /// Encrypts the stored values of the fields the issuer marks `pciEncryptionRequired`.
    package let fields: ProfileFieldCipher
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date

    /// `retrieveMfaQuestionsWithMetadata`.
    public var mfaQuestions: MFAQuestions { issuer.mfa.questionsResponse }
    /// `retrievePasswordConfigurations`.
    public var passwordConfigurations: PasswordConfigurations { issuer.password }
    /// `retrievePasscodeConfigurations`.
    public var passcodeConfigurations: PasscodeConfigurations { issuer.passcode }
    /// The field metadata of the profile, contact and address objects.
    public var profileMetadata: ProfileMetadata { issuer.enrollmentRules.metadata }

    /// What the stored profile document holds besides the columns.
    package struct StoredProfile: Codable {
        package var addressInformation: AddressInformation?
        package var additionalCustomerInformation: [String: String]?
    }

    /// `registerNewUser`: validates the whole profile, stores the user with hashed credentials,
    /// a single-use nonce bound to the registering device and, when the issuer requires it, the
    /// verification email — all in one transaction.
    ///
    /// When the issuer requires verification the registration is pending until its link is opened:
    /// it reserves nothing, a later registration of the address replaces it (its link, nonce and
    /// sessions die with it), and it expires after `registration.unverifiedHours`. 416 is only for
    /// an address a wallet holds, and costs the same hashing as a registration, so its timing does
    /// not tell a held address from a free one.
    ///
    /// - Throws: `DomainError` for a profile that breaks the rules (400-class, naming the field),
    ///   416 `email_in_use` for a held address, 503 `overloaded` past the hash gate.
    public func register(_ profile: UserProfile, caller: Caller) async throws -> RegisterUserResponse {
        let store = self.store.recording(into: caller.audit)
        let profile = issuer.enrollmentRules.applyingDefaults(profile)
        let deviceID = caller.device.deviceID
        return try await admitted(2 + (profile.mfaAnswers?.count ?? 0), for: caller) { hasher in
            try issuer.enrollmentRules.validateRegistration(profile)
            try issuer.validateNewPassword(profile.password, field: "userProfile.password")
            let email = (profile.email ?? "").trimmingCharacters(in: .whitespaces)
            let normalized = EmailAddress.normalized(email)

            let hashes = try await Self.hashCredentials(profile, mfa: issuer.mfa, hasher: hasher)
            let time = now()
            let userID = SecureRandom.identifier()
            let nonce = SecureRandom.token()
            var tokens = [TokenRecord(digest: SecureRandom.digest(nonce), purpose: .registrationNonce, userID: userID,
                                      deviceID: deviceID, createdAt: time,
                                      expiresAt: time.addingTimeInterval(TimeInterval(issuer.appInstanceVerificationSeconds)))]
            var messages: [OutboxMessage] = []
            if issuer.emailVerificationRequired {
                let link = try outbox.emailVerification(userID: userID, to: email, firstName: profile.firstName,
                                                        languages: caller.client.languages, at: time)
                tokens.append(link.token)
                messages.append(link.message)
            }
            let document = StoredProfile(addressInformation: profile.addressInformation,
                                         additionalCustomerInformation: profile.additionalCustomerInformation)
            let user = UserRecord(
                id: userID, issuer: issuer.id, email: email, emailNormalized: normalized, firstName: profile.firstName,
                lastName: profile.lastName, phone: profile.phone, externalId: profile.externalId,
                passwordHash: hashes.password, passcodeHash: hashes.passcode, emailVerified: !issuer.emailVerificationRequired,
                profileJSON: try document.encoded(sealing: issuer.enrollmentRules.metadata, with: fields), createdAt: time, updatedAt: time,
                passwordUpdatedAt: time, pendingUntil: issuer.pendingRegistrationUntil(from: time),
                languages: caller.client.languages.headerValue)
            audit(.userRegistered, user: user.id, deviceID: deviceID, details: ["method": "enrollment"], for: caller)
            try await store.createReplacingPending(user, answers: hashes.answers, tokens: tokens, messages: messages)
            let message = issuer.emailVerificationRequired
                ? "Registration successful. Check your email for the verification link."
                : "Registration successful."
            return RegisterUserResponse(nonce: nonce, customerUri: Self.customerURI(userID), message: message)
        }
    }

    /// The public identifier of a user.
    public static func customerURI(_ userID: String) -> String { "urn:latchkey:customer:\(userID)" }

    private static func hashCredentials(_ profile: UserProfile, mfa: MFASettings, hasher: SecretHasher) async throws
        -> (password: String, passcode: String, answers: [MFAAnswerRecord]) {
        async let password = hasher.hash(profile.password ?? "")
        async let passcode = hasher.hash(profile.passcode ?? "")
        let answers = try await hasher.hashAnswers(profile.mfaAnswers ?? [:], mfa: mfa)
        return (try await password, try await passcode, answers)
    }

    /// `resendVerificationEmail`: a new single-use link to an address still awaiting verification.
    /// The answer is the same whether or not the address belongs to a wallet. `client` is the
    /// requesting client's address: the per-address limit is counted per client (with a higher cap
    /// for all clients), so a stranger's requests do not use up the owner's.
    ///
    /// - Throws: 400 naming `email` for a malformed address; 429 `rate_limited` past a limit.
    public func resendVerificationEmail(_ email: String, client: String) async throws -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        guard EmailAddress.isValid(trimmed) else { throw DomainError.invalidField("email", "The email address is not valid.") }
        let (normalized, time) = (EmailAddress.normalized(trimmed), now())
        // Counted per address whether or not a wallet has it, so the limit tells nothing.
        if let until = try await store.hitEmailLimits(issuer.emailLimits("verify-email", address: normalized, client: client), now: time) {
            throw DomainError(.rateLimited, message: "Too many verification emails for this address; try again later.",
                              retryAfter: until.retryAfter(from: time))
        }
        if let user = try await store.user(issuer: issuer.id, emailNormalized: normalized), !user.emailVerified,
           user.pendingUntil.map({ $0 > time }) ?? true {
            let link = try outbox.emailVerification(userID: user.id, to: user.email, firstName: user.firstName,
                                                    languages: user.languagePreference, at: time)
            try await store.issueToken(link.token, messages: [link.message])
        }
        return "If \(trimmed) is waiting for verification, a new link is on its way."
    }
}

extension EnrollmentService.StoredProfile {
    /// The document of a stored user. A document that does not decode is an error
    /// (`StoreError.undecodableDocument`), never an empty profile that a write would then store.
    package init(of user: UserRecord) throws {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(user.profileJSON.utf8))
        } catch {
            throw StoreError.undecodableDocument("users.profile_json")
        }
    }
}

extension EnrollmentService.StoredProfile {
    /// The stored document with what an import gave (`imported`, a document of its own) put over
    /// it; a stored document that does not decode is kept as it is.
    package static func merging(_ imported: String, into stored: String) -> String {
        guard var document = try? JSONDecoder().decode(Self.self, from: Data(stored.utf8)),
              let given = try? JSONDecoder().decode(Self.self, from: Data(imported.utf8)) else { return stored }
        if let information = given.additionalCustomerInformation { document.additionalCustomerInformation = information }
        return (try? JSONEncoder().encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? stored
    }
}
