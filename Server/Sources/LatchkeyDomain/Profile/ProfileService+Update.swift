import Foundation
import LatchkeyCore

extension ProfileService {
    /// `updateUserProfile` with the spec's conventions (see `ProfileUpdate`). 400 naming the field,
    /// 416 when a new email is taken; a new email gets a verification link and the old one a
    /// notice, and becomes the login once verified. A change of a field the issuer marks
    /// `reverificationRequired` is held until confirmed from a link sent to the wallet's email
    /// (403 `email_not_verified` when it has none). `lastModifiedDate` moves on every update.
    /// - Returns: the request paths of what waits for verification (`email`, held fields).
    @discardableResult
    public func updateProfile(_ principal: Principal, _ update: ProfileUpdate, caller: Caller) async throws -> [String] {
        let store = self.store.recording(into: caller.audit)
        return try await admitted(update.mfaAnswers?.count ?? 0, for: caller) { hasher in
            let current = try await principal.user()
            let time = now()
            let newEmail = update.email.map { $0.trimmingCharacters(in: .whitespaces) }
                .flatMap { EmailAddress.normalized($0) != current.emailNormalized ? $0 : nil }
            // Names and the address are everyday edits; the email and the MFA answers guard the account.
            if update.mfaAnswers != nil || newEmail != nil {
                try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: time)
            }
            try issuer.enrollmentRules.validateUpdate(update)
            var update = update
            // Opened once: the held change compares with it, and the update lays itself over it.
            var document = try EnrollmentService.StoredProfile(of: current, opening: fields)
            let held = PendingProfileChange.holding(&update, metadata: issuer.enrollmentRules.metadata, user: current,
                                                    document: document)
            // Before anything of the update is recorded or hashed.
            if !held.isEmpty { try requireProvableAddress(of: current, for: held) }
            var user = current
            if let firstName = update.firstName { user.firstName = firstName }
            if let lastName = update.lastName { user.lastName = lastName }
            let metadata = issuer.enrollmentRules.metadata
            // The update replaces the external id and a sent address, except what cannot be changed.
            if ProfileMetadata.field(ProfileMetadata.Key.externalId, in: metadata.userProfile)?.updatesAllowed ?? true {
                user.externalId = update.externalId
            }
            if var address = update.addressInformation {
                for rule in metadata.addressInformation where !rule.updatesAllowed {
                    guard let name = ProfileMetadata.addressProperties[rule.key] else { continue }
                    address[name] = document.addressInformation?[name]
                }
                document.addressInformation = address
            }
            if let changes = update.additionalCustomerInformation {
                var info = document.additionalCustomerInformation ?? [:]
                for (key, value) in changes { info[key] = value }
                try issuer.enrollmentRules.validateAdditionalInformationShape(info, field: "additionalCustomerInformation")
                document.additionalCustomerInformation = info.isEmpty ? nil : info
            }
            user.profileJSON = try document.encoded(sealing: issuer.enrollmentRules.metadata, with: fields)

            var tokens: [TokenRecord] = []
            var messages: [OutboxMessage] = []
            if let email = newEmail {
                if try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email)) != nil {
                    throw DomainError.emailInUse(field: "email")
                }
                let languages = current.languagePreference(preferring: caller.client.languages)
                let link = try outbox.emailVerification(userID: user.id, to: email, firstName: user.firstName, languages: languages,
                                                        at: time, purpose: .emailChange, data: email, template: .emailChangeVerification)
                let revert = try outbox.emailChangeNotice(to: user.email, new: email, userID: user.id, languages: languages, at: time)
                tokens = [link.token, revert.token]
                messages = [link.message, revert.message]
            }
            let answers: [MFAAnswerRecord]? = if let given = update.mfaAnswers {
                try await hasher.hashAnswers(given, mfa: issuer.mfa)
            } else { nil }
            if answers != nil { messages += try outbox.securityNotice(.securityQuestions, to: current, answering: caller, at: time) }
            if let newEmail { audit(.emailChangeRequested, user: user.id, deviceID: principal.session.deviceID, details: ["to": newEmail], for: caller) }
            if answers != nil { audit(.mfaAnswersChanged, user: user.id, deviceID: principal.session.deviceID, for: caller) }
            if !held.isEmpty {
                let link = try holdForConfirmation(held, of: current, deviceID: principal.session.deviceID, at: time, caller: caller)
                tokens.append(link.token)
                messages.append(link.message)
            }
            try await store.applyProfileUpdate(user, answers: answers, tokens: tokens, messages: messages, now: time)
            return (newEmail == nil ? [] : ["email"]) + held.paths
        }
    }
}

/// What opening an email change's revert link did.
public enum EmailRevertOutcome: Sendable, Equatable {
    /// The address is the wallet's again; every session ended.
    case reverted(email: String)
    /// Another wallet has the address meanwhile: nothing changed.
    case taken(email: String)
    /// Unknown, used or expired.
    case invalid
}

extension ProfileService {
    /// Opens the link the old address got with an email change: the old address is the login
    /// again, a pending change is void, and every session and device token of the wallet ends (whoever
    /// changed it is signed out).
    public func revertEmailChange(token: String, caller: Caller) async throws -> EmailRevertOutcome {
        let store = self.store.recording(into: caller.audit)
        let time = now()
        guard let record = try await store.consumeToken(digest: SecureRandom.digest(token), purpose: .emailRevert, now: time),
              let email = record.data else { return .invalid }
        do {
            audit(.emailReverted, user: record.userID, details: ["to": email], for: caller)
            try await store.revertEmail(userID: record.userID, email: email, now: time)
        } catch StoreError.emailInUse {
            return .taken(email: email)
        }
        return .reverted(email: email)
    }
}

