import Foundation

/// Writes what Latchkey sends: each message built from its template and sealed for the outbox
/// and, for a link, the single-use token whose digest the database keeps. Services hand both to
/// the store in the transaction of the change they report, so a message is sent exactly when the
/// change is stored.
public struct OutboxWriter: Sendable {
    package let cipher: OutboxCipher
    package let issuer: IssuerSettings
    package let publicURL: PublicBaseURL

    /// A sealed message and the token its link carries.
    package struct Link {
        package let token: TokenRecord
        package let message: OutboxMessage
    }

    /// The link that verifies `email` for a user: registration, resend, sign-up with an email,
    /// SSO with an unverified address, or (purpose `.emailChange`, `data` the new address) a change.
    package func emailVerification(userID: String, to email: String, firstName: String?, at time: Date,
                           purpose: TokenPurpose = .emailVerification, data: String? = nil,
                           template: String = "email_verification") throws -> Link {
        let secret = SecureRandom.token()
        let message = MessageTemplates.verification(to: email, firstName: firstName,
                                                    link: "\(publicURL.value)/verify-email?token=\(secret)",
                                                    issuer: issuer, template: template)
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: purpose, userID: userID, deviceID: nil,
                                       createdAt: time, expiresAt: time.addingTimeInterval(MessageTemplates.verificationLifetime),
                                       data: data),
                    message: try cipher.seal(message, now: time))
    }

    /// The notice to the old address that a change to `new` was asked for, with the link that puts
    /// it back (the token's data is the old address).
    package func emailChangeNotice(to old: String, new: String, userID: String, at time: Date) throws -> Link {
        let secret = SecureRandom.token()
        let message = MessageTemplates.emailChangeNotice(to: old, new: new, revertLink: "\(publicURL.value)/revert-email?token=\(secret)",
                                                         issuer: issuer)
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: .emailRevert, userID: userID, deviceID: nil,
                                       createdAt: time, expiresAt: time.addingTimeInterval(MessageTemplates.revertLifetime),
                                       data: old),
                    message: try cipher.seal(message, now: time))
    }

    /// The link to the wallet's address that confirms a held change of `fields` (the issuer's names).
    package func profileChangeConfirmation(to user: UserRecord, fields: [String], data: String, at time: Date) throws -> Link {
        let secret = SecureRandom.token()
        let message = MessageTemplates.profileChangeConfirmation(to: user.email, firstName: user.firstName, fields: fields,
                                                                 link: "\(publicURL.value)/confirm-change?token=\(secret)",
                                                                 issuer: issuer)
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: .profileChange, userID: user.id,
                                       deviceID: nil, createdAt: time,
                                       expiresAt: time.addingTimeInterval(MessageTemplates.verificationLifetime), data: data),
                    message: try cipher.seal(message, now: time))
    }

    /// The security notice of a change to `user`'s wallet, or none for a wallet without an email.
    package func securityNotice(_ change: String, to user: UserRecord, at time: Date) throws -> [OutboxMessage] {
        guard !user.email.isEmpty else { return [] }
        return [try cipher.seal(MessageTemplates.securityNotice(to: user.email, change: change, issuer: issuer), now: time)]
    }

    /// The link to the secure portal for a forgotten credential; the token carries the question.
    package func resetLink(_ kind: CredentialKind, for user: UserRecord, question: String?, at time: Date) throws -> Link {
        let secret = SecureRandom.token()
        let minutes = issuer.reset.linkLifetimeMinutes
        let message = MessageTemplates.reset(kind, to: user.email, firstName: user.firstName,
                                             link: "\(publicURL.value)/reset?token=\(secret)", minutes: minutes, issuer: issuer)
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: kind.linkPurpose, userID: user.id,
                                       deviceID: nil, createdAt: time,
                                       expiresAt: time.addingTimeInterval(TimeInterval(minutes * 60)), data: question),
                    message: try cipher.seal(message, now: time))
    }

    /// The notice that a reset completed.
    package func resetNotice(_ kind: CredentialKind, to email: String, at time: Date) throws -> OutboxMessage {
        try cipher.seal(MessageTemplates.resetNotice(kind, to: email, issuer: issuer), now: time)
    }

    /// The one-time code of a phone verification.
    package func otp(to phone: String, code: String, at time: Date) throws -> OutboxMessage {
        try cipher.seal(MessageTemplates.otp(to: phone, code: code, minutes: max(1, issuer.otp.lifetimeSeconds / 60),
                                             issuer: issuer), now: time)
    }
}
