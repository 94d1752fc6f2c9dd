import Foundation
import LatchkeyCore

/// What operators do with the courier, whichever channel asks: read its messages (never their
/// sealed bodies), and have it send a user the emails support sends — a new verification link, a
/// link to the reset portal. Each call is recorded by the `OperatorTrail`. Knows no HTTP; refuses
/// with `DomainError`.
public struct CourierAdministration: Sendable {
    public typealias Store = CredentialStore & AdminActionStore
    package let store: any Store
    /// Builds the verification and reset links, sealed for the outbox.
    package let outbox: OutboxWriter
    /// Asks for the user's pending MFA question, which a reset link carries.
    package let verifier: CredentialVerifier
    package let trail: OperatorTrail
    package let now: @Sendable () -> Date

    public init(store: any Store, outbox: OutboxWriter, verifier: CredentialVerifier, trail: OperatorTrail,
                now: @escaping @Sendable () -> Date) {
        self.store = store
        self.outbox = outbox
        self.verifier = verifier
        self.trail = trail
        self.now = now
    }

    /// The courier's messages in `state`, newest first, after `cursor`, with the cursor of the
    /// next page when there is one. The sealed bodies never leave the store's rows here.
    public func messages(state: CourierMessageState?, after cursor: MessagePageCursor?, limit: Int,
                         for call: OperatorCall) async throws -> (messages: [OutboxMessage], next: MessagePageCursor?) {
        try await trail.recorded(.admin(.listCourierMessages), user: nil, call: call) {
            let rows = try await store.outboxMessages(state: state, after: cursor, limit: limit + 1)
            let page = Array(rows.prefix(limit)).map { message in
                var message = message
                message.sealedPayload = nil
                return message
            }
            let next = rows.count > limit ? page.last.map { MessagePageCursor(createdAt: $0.createdAt, id: $0.id) } : nil
            return (page, next)
        }
    }

    /// Sends a new verification link to the user's address, voiding none of the earlier ones.
    /// Throws `DomainError(.unknownUser)`, or `DomainError(.alreadyVerified)`.
    public func resendVerification(_ user: OperatorTrail.UserReference, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.resendVerification), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            try UserAdministration.requireEmail(user)
            guard !user.emailVerified else { throw DomainError(.alreadyVerified) }
            let link = try outbox.emailVerification(userID: user.id, to: user.email, firstName: user.firstName,
                                                    languages: user.languagePreference, at: now())
            try await store.issueToken(link.token, messages: [link.message])
        }
    }

    /// Sends a link to the secure portal to reset the password or the passcode, as a forgotten
    /// credential's request does (the user's pending MFA question travels with it).
    /// Throws `DomainError(.unknownUser)`.
    public func sendResetLink(_ user: OperatorTrail.UserReference, _ kind: CredentialKind, for call: OperatorCall) async throws {
        try await trail.recorded(.admin(.sendResetLink), user: user, call: call) { user, trail in
            let store = self.store.recording(into: trail)
            try UserAdministration.requireEmail(user)
            let link = try outbox.resetLink(kind, for: user, question: try await verifier.pendingQuestion(for: user), at: now())
            trail.record(.resetRequested, user: user.id, details: ["credential": kind.rawValue, "by": "operator"], at: now())
            try await store.issueToken(link.token, messages: [link.message])
        }
    }
}
