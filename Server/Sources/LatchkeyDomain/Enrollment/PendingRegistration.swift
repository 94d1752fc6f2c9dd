import Foundation
import LatchkeyCore

extension UserStore {
    /// Stores a self-registration, replacing an unverified registration of its address
    /// (`UserRecord.pendingUntil`). Another registration of the address that inserted first in a
    /// race is pending too, so one retry replaces it.
    ///
    /// - Throws: 416 `email_in_use` naming `field` when a wallet holds the address.
    package func createReplacingPending(_ user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                                messages: [OutboxMessage], field: String = "userProfile.email") async throws {
        for attempt in 1...2 {
            do {
                return try await createUser(user, answers: answers, tokens: tokens, messages: messages, replacingPending: true)
            } catch StoreError.emailInUse where attempt == 1 {
                continue
            } catch StoreError.emailInUse {
                throw DomainError.emailInUse(field: field)
            }
        }
    }
}

extension UserRecord {
    /// Whether this is an unverified registration whose time ran out at `time`: nothing to verify
    /// any more (the store deletes it within the hour).
    package func isExpiredRegistration(at time: Date) -> Bool {
        isPendingRegistration && pendingUntil.map { $0 <= time } == true
    }
}

extension IssuerSettings {
    /// When an unverified registration made at `time` expires: nil when the issuer does not
    /// verify emails (then the first registration of an address holds it).
    package func pendingRegistrationUntil(from time: Date) -> Date? {
        emailVerificationRequired ? time.addingTimeInterval(TimeInterval(registration.unverifiedHours) * 3600) : nil
    }

    /// The throttle keys of an email sent to `normalized` at a client's request: one counted per
    /// requesting client address, one for all clients (`maxEmailsPerAddressPerHour`,
    /// `maxEmailsPerAddressPerHourAllClients`).
    package func emailLimits(_ purpose: String, address normalized: String, client: String) -> [(key: String, limit: Int)] {
        [("\(purpose):\(normalized):ip:\(client)", maxEmailsPerAddressPerHour),
         ("\(purpose):\(normalized)", maxEmailsPerAddressPerHourAllClients)]
    }
}

extension WindowCounterStore {
    /// Counts one email against each limit (`IssuerSettings.emailLimits`); answers when the first
    /// limit reached frees up, nil when none is. A request refused by its client's own limit is not
    /// counted against the address's total, so a stranger's refused flood spends nothing of it.
    package func hitEmailLimits(_ limits: [(key: String, limit: Int)], now: Date) async throws -> Date? {
        for (key, limit) in limits {
            if let until = try await hit(key, limit: limit, window: 3600, now: now) { return until }
        }
        return nil
    }
}
