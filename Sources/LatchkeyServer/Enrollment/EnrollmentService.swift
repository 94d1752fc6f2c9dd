import Foundation
import LatchkeyCore

/// The enrollment calls that need no login: the issuer's configurations and `registerNewUser`.
/// Knows no HTTP; throws `DomainError` for every refusal.
public struct EnrollmentService: Sendable {
    let store: any LatchkeyStore
    let hasher: SecretHasher
    let cipher: OutboxCipher
    let issuer: IssuerSettings
    let publicURL: PublicBaseURL
    let now: @Sendable () -> Date

    public init(store: any LatchkeyStore, hasher: SecretHasher, cipher: OutboxCipher, issuer: IssuerSettings,
                publicURL: PublicBaseURL, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.hasher = hasher
        self.cipher = cipher
        self.issuer = issuer
        self.publicURL = publicURL
        self.now = now
    }

    /// `retrieveMfaQuestionsWithMetadata`.
    public var mfaQuestions: MFAQuestions { issuer.mfa.questionsResponse }
    /// `retrievePasswordConfigurations`.
    public var passwordConfigurations: PasswordConfigurations { issuer.password }
    /// `retrievePasscodeConfigurations`.
    public var passcodeConfigurations: PasscodeConfigurations { issuer.passcode }
    /// The field metadata of the profile, contact and address objects.
    public var profileMetadata: ProfileMetadata { issuer.enrollmentRules.metadata }

    /// What the stored profile document holds besides the columns.
    struct StoredProfile: Codable {
        var addressInformation: AddressInformation?
        var additionalCustomerInformation: [String: String]?
    }

    /// `registerNewUser`: validates the whole profile, stores the user with hashed credentials,
    /// a single-use nonce bound to the registering device and, when the issuer requires it, the
    /// verification email — all in one transaction.
    public func register(_ profile: UserProfile, deviceID: String?) async throws -> RegisterUserResponse {
        try issuer.enrollmentRules.validateRegistration(profile)
        let email = (profile.email ?? "").trimmingCharacters(in: .whitespaces)
        let normalized = EmailAddress.normalized(email)
        if try await store.user(issuer: issuer.id, emailNormalized: normalized) != nil { throw DomainError.emailInUse() }

        let hashes = try await hashCredentials(profile)
        let time = now()
        let userID = SecureRandom.identifier()
        let nonce = SecureRandom.token()
        var tokens = [TokenRecord(digest: SecureRandom.digest(nonce), purpose: .registrationNonce, userID: userID,
                                  deviceID: deviceID, createdAt: time,
                                  expiresAt: time.addingTimeInterval(TimeInterval(issuer.appInstanceVerificationSeconds)))]
        var messages: [OutboxMessage] = []
        if issuer.emailVerificationRequired {
            let token = SecureRandom.token()
            tokens.append(TokenRecord(digest: SecureRandom.digest(token), purpose: .emailVerification, userID: userID,
                                      deviceID: nil, createdAt: time, expiresAt: time.addingTimeInterval(MessageTemplates.verificationLifetime)))
            messages.append(try cipher.seal(verificationEmail(to: email, firstName: profile.firstName, token: token), now: time))
        }
        let document = StoredProfile(addressInformation: profile.addressInformation,
                                     additionalCustomerInformation: profile.additionalCustomerInformation)
        let user = UserRecord(
            id: userID, issuer: issuer.id, email: email, emailNormalized: normalized, firstName: profile.firstName,
            lastName: profile.lastName, phone: profile.phone, externalId: profile.externalId,
            passwordHash: hashes.password, passcodeHash: hashes.passcode, emailVerified: !issuer.emailVerificationRequired,
            profileJSON: String(decoding: try JSONEncoder().encode(document), as: UTF8.self), createdAt: time, updatedAt: time,
            passwordUpdatedAt: time)
        do {
            try await store.createUser(user, answers: hashes.answers, tokens: tokens, messages: messages)
        } catch StoreError.emailInUse {
            throw DomainError.emailInUse()
        }
        let message = issuer.emailVerificationRequired
            ? "Registration successful. Check your email for the verification link."
            : "Registration successful."
        return RegisterUserResponse(nonce: nonce, customerUri: Self.customerURI(userID), message: message)
    }

    /// The public identifier of a user.
    public static func customerURI(_ userID: String) -> String { "urn:latchkey:customer:\(userID)" }

    private func hashCredentials(_ profile: UserProfile) async throws
        -> (password: String, passcode: String, answers: [MFAAnswerRecord]) {
        async let password = hasher.hash(profile.password ?? "")
        async let passcode = hasher.hash(profile.passcode ?? "")
        let answers = try await hasher.hashAnswers(profile.mfaAnswers ?? [:], mfa: issuer.mfa)
        return (try await password, try await passcode, answers)
    }

    /// `resendVerificationEmail`: a new single-use link to an address still awaiting verification.
    /// The answer is the same whether or not the address belongs to a wallet.
    public func resendVerificationEmail(_ email: String) async throws -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        guard EmailAddress.isValid(trimmed) else { throw DomainError.invalidField("email", "The email address is not valid.") }
        if let user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(trimmed)),
           !user.emailVerified {
            let token = SecureRandom.token()
            let time = now()
            let message = try cipher.seal(verificationEmail(to: user.email, firstName: user.firstName, token: token), now: time)
            try await store.issueToken(TokenRecord(digest: SecureRandom.digest(token), purpose: .emailVerification,
                                                   userID: user.id, deviceID: nil, createdAt: time,
                                                   expiresAt: time.addingTimeInterval(MessageTemplates.verificationLifetime)), messages: [message])
        }
        return "If \(trimmed) is waiting for verification, a new link is on its way."
    }

    private func verificationEmail(to email: String, firstName: String?, token: String) -> OutgoingMessage {
        MessageTemplates.verification(to: email, firstName: firstName, link: "\(publicURL.value)/verify-email?token=\(token)",
                                      issuer: issuer)
    }
}

extension EnrollmentService.StoredProfile {
    /// The document of a stored user. A document that does not decode is an error
    /// (`StoreError.undecodableDocument`), never an empty profile that a write would then store.
    init(of user: UserRecord) throws {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(user.profileJSON.utf8))
        } catch {
            throw StoreError.undecodableDocument("users.profile_json")
        }
    }
}
