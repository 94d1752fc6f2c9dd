import Foundation

/// Writes what Latchkey sends: each message rendered from its template in the customer's
/// language and sealed for the outbox and, for a link, the single-use token whose digest the
/// database keeps. Services hand both to the store in the transaction of the change they report,
/// so a message is sent exactly when the change is stored.
///
/// `languages` is the customer's preference: the wallet's recorded one
/// (`UserRecord.languagePreference`), or the request's when the request is the customer's own.
public struct OutboxWriter: Sendable {
    package let cipher: OutboxCipher
    package let issuer: IssuerSettings
    package let publicURL: PublicBaseURL
    package let templates: MessageCatalog

    package init(cipher: OutboxCipher, issuer: IssuerSettings, publicURL: PublicBaseURL, templates: MessageCatalog) {
        self.cipher = cipher
        self.issuer = issuer
        self.publicURL = publicURL
        self.templates = templates
    }

    /// A sealed message and the token its link carries.
    package struct Link {
        package let token: TokenRecord
        package let message: OutboxMessage
    }

    /// The link that verifies `email` for a user: registration, resend, sign-up with an email,
    /// SSO with an unverified address, or (purpose `.emailChange`, `data` the new address,
    /// template `.emailChangeVerification`) a change.
    package func emailVerification(userID: String, to email: String, firstName: String?, languages: LanguagePreference, at time: Date,
                                   purpose: TokenPurpose = .emailVerification, data: String? = nil,
                                   template: MessageTemplate = .emailVerification) throws -> Link {
        let secret = SecureRandom.token()
        let link = "\(publicURL.value)/verify-email?token=\(secret)"
        let message = templates.message(template, to: email, languages: languages, issuer: issuer,
                                        values: ["firstName": firstName, "link": link,
                                                 "hours": String(Int(MessageTemplates.verificationLifetime / 3600))],
                                        data: ["link": link])
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: purpose, userID: userID, deviceID: nil,
                                       createdAt: time, expiresAt: time.addingTimeInterval(MessageTemplates.verificationLifetime),
                                       data: data),
                    message: try cipher.seal(message, now: time))
    }

    /// The notice to the old address that a change to `new` was asked for, with the link that puts
    /// it back (the token's data is the old address).
    package func emailChangeNotice(to old: String, new: String, userID: String, languages: LanguagePreference, at time: Date) throws -> Link {
        let secret = SecureRandom.token()
        let link = "\(publicURL.value)/revert-email?token=\(secret)"
        let message = templates.message(.emailChangeNotice, to: old, languages: languages, issuer: issuer,
                                        values: ["newEmail": new, "link": link,
                                                 "days": String(Int(MessageTemplates.revertLifetime / 86_400))],
                                        data: ["newEmail": new, "link": link])
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: .emailRevert, userID: userID, deviceID: nil,
                                       createdAt: time, expiresAt: time.addingTimeInterval(MessageTemplates.revertLifetime),
                                       data: old),
                    message: try cipher.seal(message, now: time))
    }

    /// The link to the wallet's address that confirms a held change of `fields` (the issuer's names).
    package func profileChangeConfirmation(to user: UserRecord, fields: [String], data: String, languages: LanguagePreference,
                                           at time: Date) throws -> Link {
        let secret = SecureRandom.token()
        let link = "\(publicURL.value)/confirm-change?token=\(secret)"
        let list = fields.joined(separator: ", ")
        let message = templates.message(.profileChangeConfirmation, to: user.email, languages: languages, issuer: issuer,
                                        values: ["firstName": user.firstName, "fields": list, "link": link,
                                                 "hours": String(Int(MessageTemplates.verificationLifetime / 3600))],
                                        data: ["link": link, "fields": list])
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: .profileChange, userID: user.id,
                                       deviceID: nil, createdAt: time,
                                       expiresAt: time.addingTimeInterval(MessageTemplates.verificationLifetime), data: data),
                    message: try cipher.seal(message, now: time))
    }

    /// The security notice of a change to `user`'s wallet, or none for a wallet without an email.
    /// `remaining`: the recovery codes left (`recoveryCodeUsed`).
    package func securityNotice(_ change: SecurityChange, to user: UserRecord, languages: LanguagePreference, remaining: Int? = nil,
                                at time: Date) throws -> [OutboxMessage] {
        guard !user.email.isEmpty else { return [] }
        return [try cipher.seal(templates.securityNotice(change, to: user.email, languages: languages, issuer: issuer, remaining: remaining),
                                now: time)]
    }

    /// The security notice of a change the customer made in the app (`caller`'s request): in the
    /// request's languages, else the wallet's recorded ones.
    package func securityNotice(_ change: SecurityChange, to user: UserRecord, answering caller: Caller, remaining: Int? = nil,
                                at time: Date) throws -> [OutboxMessage] {
        try securityNotice(change, to: user, languages: user.languagePreference(preferring: caller.client.languages), remaining: remaining,
                           at: time)
    }

    /// The link to the secure portal for a forgotten credential; the token carries the question.
    /// The link goes to the wallet's address, so it is written in the wallet's recorded languages.
    package func resetLink(_ kind: CredentialKind, for user: UserRecord, question: String?, at time: Date) throws -> Link {
        let secret = SecureRandom.token()
        let minutes = issuer.reset.linkLifetimeMinutes
        let link = "\(publicURL.value)/reset?token=\(secret)"
        let message = templates.message(.reset(kind), to: user.email, languages: user.languagePreference, issuer: issuer,
                                        values: ["firstName": user.firstName, "link": link, "minutes": String(minutes)],
                                        data: ["link": link])
        return Link(token: TokenRecord(digest: SecureRandom.digest(secret), purpose: kind.linkPurpose, userID: user.id,
                                       deviceID: nil, createdAt: time,
                                       expiresAt: time.addingTimeInterval(TimeInterval(minutes * 60)), data: question),
                    message: try cipher.seal(message, now: time))
    }

    /// The notice that a reset of `user`'s credential completed, in the wallet's recorded languages.
    package func resetNotice(_ kind: CredentialKind, to user: UserRecord, at time: Date) throws -> OutboxMessage {
        try cipher.seal(templates.message(.resetNotice(kind), to: user.email, languages: user.languagePreference, issuer: issuer,
                                          values: [:], data: [:]),
                        now: time)
    }

    /// The one-time code of a phone verification, in the languages of the request that asked for it.
    package func otp(to phone: String, code: String, languages: LanguagePreference, at time: Date) throws -> OutboxMessage {
        try cipher.seal(templates.message(.otp, to: phone, languages: languages, issuer: issuer,
                                          values: ["code": code, "minutes": String(max(1, issuer.otp.lifetimeSeconds / 60))],
                                          data: ["code": code]),
                        now: time)
    }
}

extension MessageCatalog {
    /// The message of `template` to `to`, rendered in the best of `languages` with the issuer's
    /// name and `values` (a nil value is left out); `data` is what the channel's payload carries.
    package func message(_ template: MessageTemplate, to recipient: String, languages: LanguagePreference, issuer: IssuerSettings,
                         values: [String: String?], flags: Set<String> = [], data: [String: String]) -> OutgoingMessage {
        var filled = values.compactMapValues { $0 }
        filled["issuer"] = issuer.name
        let rendered = render(template, for: languages, values: filled, flags: flags)
        return OutgoingMessage(channel: template.channel, to: recipient, template: template.name, subject: rendered.subject,
                               body: rendered.text, html: template.channel == .email ? rendered.html : nil,
                               language: rendered.language, data: data)
    }

    /// The security notice that `change` happened to the wallet of `email`; `byImport`: the
    /// change was an import of the issuer's accounts, not someone signed in to the wallet.
    package func securityNotice(_ change: SecurityChange, to email: String, languages: LanguagePreference, issuer: IssuerSettings,
                                byImport: Bool = false, remaining: Int? = nil) -> OutgoingMessage {
        message(.securityNotice, to: email, languages: languages, issuer: issuer, values: ["remaining": remaining.map(String.init)],
                flags: byImport ? [change.rawValue, "byImport"] : [change.rawValue], data: ["change": change.dataName])
    }
}
