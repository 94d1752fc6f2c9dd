import Foundation
import LatchkeyCore

/// `resetForgottenPassword` and `resetForgottenPasscode`: the emailed link to the secure portal.
extension ProfileService {
    /// Sends a single-use link to the portal. 400 for a malformed address; 410 for an address no
    /// wallet has, unless the issuer answers every request alike. The link carries one of the
    /// user's MFA questions, chosen at random now, so reopening it cannot pick an easier one.
    public func requestReset(_ kind: CredentialKind, email: String) async throws -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        guard EmailAddress.isValid(trimmed) else { throw DomainError.invalidField("email", "The email address is not valid.") }
        let message = "If \(trimmed) belongs to a wallet, a link to reset its \(kind.displayName) is on its way."
        guard let user = try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(trimmed)) else {
            if issuer.reset.uniformAnswers { return message }
            throw DomainError.unknownEmail
        }
        if !verifier.throttle.allow("reset:" + user.id, limit: verifier.throttle.settings.credentialAttemptsPerMinutePerAccount) {
            if issuer.reset.uniformAnswers { return message }
            throw DomainError(.rateLimited, retryAfter: verifier.throttle.retryAfter)
        }
        let question = try await store.mfaAnswers(userID: user.id).map(\.question).randomElement()
        let token = SecureRandom.token()
        let time = now()
        let lifetime = TimeInterval(issuer.reset.linkLifetimeMinutes * 60)
        let link = "\(publicURL.value)/reset?token=\(token)"
        let email = MessageTemplates.reset(kind, to: user.email, firstName: user.firstName, link: link,
                                           minutes: issuer.reset.linkLifetimeMinutes, issuer: issuer)
        try await store.issueToken(TokenRecord(digest: SecureRandom.digest(token), purpose: kind.linkPurpose, userID: user.id,
                                               deviceID: nil, createdAt: time, expiresAt: time.addingTimeInterval(lifetime),
                                               data: question),
                                   messages: [try cipher.seal(email, now: time)])
        return message
    }

    /// The live link (`\.linkPurpose`) or grant (`\.grantPurpose`) with this token, of either kind.
    func liveToken(_ token: String, _ purpose: KeyPath<CredentialKind, TokenPurpose>)
        async throws -> (TokenRecord, CredentialKind, UserRecord)? {
        let digest = SecureRandom.digest(token)
        for kind in CredentialKind.allCases {
            if let record = try await store.token(digest: digest, purpose: kind[keyPath: purpose], now: now()),
               let user = try await store.user(id: record.userID) {
                return (record, kind, user)
            }
        }
        return nil
    }
}
