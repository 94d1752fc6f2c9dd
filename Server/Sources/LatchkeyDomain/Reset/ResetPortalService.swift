import Foundation
import LatchkeyCore

/// The reset of a forgotten password or passcode: the wallet API's request for an emailed link
/// (`resetForgottenPassword`, `resetForgottenPasscode`) and the secure portal the link opens — its
/// question, then the new credential (`ResetPortalService+Portal.swift`). Knows no HTTP.
public struct ResetPortalService: Sendable {
    /// What requests, links, answers and grants read and write.
    public typealias Store = UserStore & CredentialStore & ResetStore & WindowCounterStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Builds the reset links and the notice of a completed reset.
    package let outbox: OutboxWriter
    /// Asks for the pending MFA question a link carries, checks its answer and the password history.
    package let verifier: CredentialVerifier
    /// The per-account limit of reset requests (shared with the edge).
    package let throttle: Throttle
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date

    /// Sends a single-use link to the portal. 400 for a malformed address; 410 for an address no
    /// wallet has (an unverified registration is none), unless the issuer answers every request
    /// alike. The link carries the user's pending MFA question (the one logins ask too), so neither
    /// reopening it nor asking for another link draws an easier one. Earlier links stay valid until
    /// used or expired (the per-account answer budget bounds guesses across links), so a stranger's
    /// request voids nothing; the per-address limit is counted per requesting client address (`caller.client.clientIP`),
    /// with a higher cap for all clients.
    ///
    /// - Throws: 400 naming `email`; 410 `unknown_email`; 429 `rate_limited` past a limit.
    public func requestReset(_ kind: CredentialKind, email: String, caller: Caller) async throws -> String {
        let store = self.store.recording(into: caller.audit)
        let client = caller.client.clientIP
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        guard EmailAddress.isValid(trimmed) else { throw DomainError.invalidField("email", "The email address is not valid.") }
        let message = "If \(trimmed) belongs to a wallet, a link to reset its \(kind.displayName) is on its way."
        let (normalized, time) = (EmailAddress.normalized(trimmed), now())
        // Reset emails per address and client in the database (every replica counts together), known or not.
        if let until = try await store.hitEmailLimits(issuer.emailLimits("reset-email", address: normalized, client: client), now: time) {
            if issuer.reset.uniformAnswers { return message }
            throw DomainError(.rateLimited, message: "Too many reset emails for this address; try again later.",
                              retryAfter: until.retryAfter(from: time))
        }
        guard let user = try await store.user(issuer: issuer.id, emailNormalized: normalized), !user.isPendingRegistration else {
            if issuer.reset.uniformAnswers { return message }
            throw DomainError.unknownEmail
        }
        if let wait = try await throttle.refusal("reset:" + user.id,
                                                 limit: throttle.settings.credentialAttemptsPerMinutePerAccount) {
            if issuer.reset.uniformAnswers { return message }
            throw DomainError(.rateLimited, retryAfter: wait)
        }
        let question = try await verifier.pendingQuestion(for: user)
        let link = try outbox.resetLink(kind, for: user, question: question, at: time)
        audit(.resetRequested, user: user.id, details: ["credential": kind.rawValue], for: caller)
        try await store.issueToken(link.token, messages: [link.message])
        return message
    }

    /// The live link (`\.linkPurpose`) or grant (`\.grantPurpose`) with this token, of either kind.
    package func liveToken(_ token: String, _ purpose: KeyPath<CredentialKind, TokenPurpose>)
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
