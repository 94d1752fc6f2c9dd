import Foundation
import LatchkeyCore

/// Changes to fields the issuer marks `reverificationRequired` (other than the email, which has its
/// own link to the new address), held until the wallet's owner confirms them from a link sent to the
/// wallet's email address. A thief with an unlocked phone or a stolen session can then not quietly
/// change what the issuer wanted confirmed (a name on a card, a billing address, a reference).
package struct PendingProfileChange: Codable, Sendable, Equatable {
    /// New values by request path (`firstName`, `lastName`, `externalId`, `addressInformation.<name>`,
    /// `additionalCustomerInformation.<key>`); `nil` removes the value.
    package var values: [String: String?] = [:]
    /// The wallet's address the link went to (normalized): the link confirms nothing once the
    /// wallet's address is another (an email change, a revert).
    package var sentTo = ""

    package var isEmpty: Bool { values.isEmpty }

    /// The paths held, in a stable order.
    package var paths: [String] { values.keys.sorted() }

    /// Takes out of `update` each change of a field marked `reverificationRequired`, leaving the
    /// stored value in its place, so the rest of the update applies at once.
    package static func holding(_ update: inout ProfileUpdate, metadata: ProfileMetadata, user: UserRecord,
                                document: EnrollmentService.StoredProfile) -> PendingProfileChange {
        var held = PendingProfileChange()
        let K = ProfileMetadata.Key.self
        func reverified(_ key: String, in group: [FieldMetadata]) -> Bool {
            guard let rule = ProfileMetadata.field(key, in: group) else { return false }
            return rule.reverificationRequired == true && rule.updatesAllowed
        }
        if reverified(K.firstName, in: metadata.userProfile), let value = update.firstName, value != user.firstName {
            held.values["firstName"] = .some(value)
            update.firstName = nil
        }
        if reverified(K.lastName, in: metadata.userProfile), let value = update.lastName, value != user.lastName {
            held.values["lastName"] = .some(value)
            update.lastName = nil
        }
        // Every update replaces the external id: not sending it removes it, which is a change too.
        if reverified(K.externalId, in: metadata.userProfile), update.externalId != user.externalId {
            held.values["externalId"] = .some(update.externalId)
            update.externalId = user.externalId
        }
        if var address = update.addressInformation {
            for rule in metadata.addressInformation where reverified(rule.key, in: metadata.addressInformation) {
                guard let name = ProfileMetadata.addressProperties[rule.key] else { continue }
                let stored = document.addressInformation?[name]
                if address[name] != stored {
                    held.values["addressInformation." + name] = .some(address[name])
                    address[name] = stored
                }
            }
            update.addressInformation = address
        }
        if var changes = update.additionalCustomerInformation {
            for (key, value) in changes where reverified(key, in: metadata.additionalCustomerInformation) {
                if value != document.additionalCustomerInformation?[key] {
                    held.values["additionalCustomerInformation." + key] = .some(value)
                }
                changes[key] = nil
            }
            update.additionalCustomerInformation = changes
        }
        return held
    }

    /// The held values laid over `user` and its profile document.
    package func applied(to user: inout UserRecord, document: inout EnrollmentService.StoredProfile) {
        for (path, value) in values {
            switch path {
            case "firstName": user.firstName = value
            case "lastName": user.lastName = value
            case "externalId": user.externalId = value
            default:
                let (group, name) = Self.split(path)
                if group == "addressInformation" {
                    var address = document.addressInformation ?? AddressInformation()
                    address[name] = value
                    document.addressInformation = address
                } else if group == "additionalCustomerInformation" {
                    var info = document.additionalCustomerInformation ?? [:]
                    info[name] = value
                    document.additionalCustomerInformation = info.isEmpty ? nil : info
                }
            }
        }
    }

    /// The held values as an update of `user`, checked by the issuer's rules as they are now (they may
    /// have changed since the change was asked for): an address is checked whole, as it would be stored.
    /// - Throws: `DomainError` naming the first field the rules refuse.
    package func validate(for user: UserRecord, document: EnrollmentService.StoredProfile, rules: EnrollmentRules) throws(DomainError) {
        var update = ProfileUpdate(externalId: user.externalId)
        var address = document.addressInformation ?? AddressInformation()
        var additional: [String: String?] = [:], addressChanged = false
        for (path, value) in values {
            switch path {
            case "firstName": update.firstName = value
            case "lastName": update.lastName = value
            case "externalId": update.externalId = value
            default:
                let (group, name) = Self.split(path)
                if group == "addressInformation" { address[name] = value; addressChanged = true }
                if group == "additionalCustomerInformation" { additional[name] = .some(value) }
            }
        }
        if !additional.isEmpty { update.additionalCustomerInformation = additional }
        if addressChanged { update.addressInformation = address }
        try rules.validateUpdate(update)
    }

    /// The names the issuer gives the held fields, for the email and the confirmation page.
    package func fieldNames(in metadata: ProfileMetadata) -> [String] {
        paths.map { path in
            let K = ProfileMetadata.Key.self
            switch path {
            case "firstName": return ProfileMetadata.field(K.firstName, in: metadata.userProfile)?.name ?? path
            case "lastName": return ProfileMetadata.field(K.lastName, in: metadata.userProfile)?.name ?? path
            case "externalId": return ProfileMetadata.field(K.externalId, in: metadata.userProfile)?.name ?? path
            default:
                let (group, name) = Self.split(path)
                let key = group == "addressInformation"
                    ? ProfileMetadata.addressProperties.first { $0.value == name }?.key ?? name : name
                return ProfileMetadata.field(key, in: metadata[group: group])?.name ?? name
            }
        }
    }
}

extension PendingProfileChange {
    /// A held path's group and name (`addressInformation.city` → `addressInformation`, `city`);
    /// a key may hold dots, so only the first one splits.
    static func split(_ path: String) -> (group: String, name: String) {
        guard let dot = path.firstIndex(of: ".") else { return (path, "") }
        return (String(path[..<dot]), String(path[path.index(after: dot)...]))
    }
}

/// What opening a profile change's confirmation link did.
public enum ProfileChangeOutcome: Sendable, Equatable {
    /// The held values are the profile's now; the issuer's names of the fields.
    case changed(fields: [String])
    /// The issuer's rules no longer allow it (they changed since it was asked for); nothing changed.
    case refused(reason: LocalizableText)
    /// Unknown, used, expired, replaced by a later change, or sent to an address that is no longer
    /// the wallet's; or the wallet is not active.
    case invalid
}

extension ProfileService {
    /// The held change of `user`: its confirmation link to the wallet's email, the audit event,
    /// and the token (the values encrypted like `pciEncryptionRequired` ones: they may be such).
    /// - Throws: 403 `email_not_verified` when the wallet has no email address the link could
    ///   prove (a phone sign-up without a verified email, or an unverified one where the issuer
    ///   requires verification).
    /// Refuses a held change for a wallet whose address a link could not prove, before anything of
    /// the update is recorded.
    /// - Throws: 403 `email_not_verified` naming the first held field.
    func requireProvableAddress(of user: UserRecord, for held: PendingProfileChange) throws {
        let provable = !user.email.isEmpty && !user.emailNormalized.hasPrefix("phone:")
            && (user.emailVerified || !issuer.emailVerificationRequired)
        guard provable else {
            throw DomainError(.emailNotVerified, message: "A change of \(held.paths.joined(separator: ", ")) is confirmed by "
                              + "email, and the wallet has no verified email address.", field: held.paths.first)
        }
    }

    func holdForConfirmation(_ held: PendingProfileChange, of user: UserRecord, deviceID: String?, at time: Date,
                             caller: Caller) throws -> OutboxWriter.Link {
        try requireProvableAddress(of: user, for: held)
        var held = held
        held.sentTo = user.emailNormalized
        let data = try fields.seal(String(decoding: try JSONEncoder().encode(held), as: UTF8.self))
        let names = held.fieldNames(in: issuer.enrollmentRules.metadata)
        audit(.profileChangeRequested, user: user.id, deviceID: deviceID,
              details: ["fields": held.paths.joined(separator: ",")], for: caller)
        return try outbox.profileChangeConfirmation(to: user, fields: names, data: data,
                                                languages: user.languagePreference(preferring: caller.client.languages), at: time)
    }

    /// The issuer's names of the fields a confirmation link would change, or nil for a link that
    /// does not work. Changes nothing: mail scanners open links.
    public func profileChangeLinkFields(token: String) async throws -> [String]? {
        guard let record = try await store.token(digest: SecureRandom.digest(token), purpose: .profileChange, now: now()),
              let held = try held(in: record) else { return nil }
        return held.fieldNames(in: issuer.enrollmentRules.metadata)
    }

    /// Opens a confirmation link: the held values become the profile's (other fields as they are now).
    public func confirmProfileChange(token: String, caller: Caller) async throws -> ProfileChangeOutcome {
        let store = self.store.recording(into: caller.audit)
        let time = now()
        guard let record = try await store.consumeToken(digest: SecureRandom.digest(token), purpose: .profileChange, now: time),
              let held = try held(in: record), var user = try await store.user(id: record.userID),
              user.emailNormalized == held.sentTo, user.status == .active else { return .invalid }
        var document = try EnrollmentService.StoredProfile(of: user, opening: fields)
        do {
            try held.validate(for: user, document: document, rules: issuer.enrollmentRules)
        } catch {
            return .refused(reason: error.text)
        }
        held.applied(to: &user, document: &document)
        if let info = document.additionalCustomerInformation {
            do { try issuer.enrollmentRules.validateAdditionalInformationShape(info, field: "additionalCustomerInformation") } catch {
                return .refused(reason: error.text)
            }
        }
        user.profileJSON = try document.encoded(sealing: issuer.enrollmentRules.metadata, with: fields)
        audit(.profileChanged, user: user.id, details: ["fields": held.paths.joined(separator: ",")], for: caller)
        try await store.applyProfileUpdate(user, answers: nil, tokens: [], messages: [], now: time)
        return .changed(fields: held.fieldNames(in: issuer.enrollmentRules.metadata))
    }

    private func held(in record: TokenRecord) throws -> PendingProfileChange? {
        guard let data = record.data, let json = try? fields.open(data) else { return nil }
        return try? JSONDecoder().decode(PendingProfileChange.self, from: Data(json.utf8))
    }
}
