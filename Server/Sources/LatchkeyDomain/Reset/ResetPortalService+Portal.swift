import Foundation
import LatchkeyCore

/// The secure portal's steps: open the link, answer its question, set the new credential.
extension ResetPortalService {
    /// How long the new-credential form works after a right answer.
    package static let grantLifetime: TimeInterval = 15 * 60

    /// The account's reset-answer budget (`WindowCounterStore`).
    package static func answerKey(_ userID: String) -> String { "reset-answer:" + userID }

    /// The window of the account's reset-answer budget.
    package var answerWindow: TimeInterval { TimeInterval(issuer.reset.answerWindowMinutes) * 60 }

    /// What an opened link shows. Opening changes nothing (mail scanners open links too).
    public func openReset(token: String) async throws -> ResetLinkState {
        guard let (record, kind, user) = try await liveToken(token, \.linkPurpose) else { return .invalid }
        if user.locked { return .locked }
        if record.data != nil, let until = try await store.blockedUntil(
            Self.answerKey(user.id), limit: issuer.reset.maxAnswerAttempts, window: answerWindow, now: now()) {
            return .resting(until: until)
        }
        return .question(kind: kind, question: record.data)
    }

    /// Checks the answer to the link's question. Each answer is counted on the link before it is
    /// checked (atomically, so parallel answers cannot exceed the issuer's limit), then checked by
    /// the `CredentialVerifier` (a wrong one counts toward the wallet's lockout). A right answer
    /// uses the link up and earns a grant.
    public func answerReset(token: String, answer: String, caller: Caller) async throws -> ResetAnswerOutcome {
        let store = self.store.recording(into: caller.audit)
        return try await admitted(1, for: caller) { hasher in
            guard let (record, kind, user) = try await liveToken(token, \.linkPurpose) else { return .invalid }
            if user.locked { return .locked }
            let time = now()
            if let question = record.data {
                let limit = issuer.reset.maxAnswerAttempts
                // The account's budget first: whoever holds the inbox gets `limit` answers per window
                // however many links they ask for.
                if let until = try await store.hit(Self.answerKey(user.id), limit: limit, window: answerWindow, now: time) {
                    return .resting(until: until)
                }
                guard let counted = try await store.reserveTokenAttempt(digest: record.digest, purpose: record.purpose,
                                                                        now: time, limit: limit) else { return .invalid }
                let verdict = try await verifier.checkRecoveryAnswer(answer, question: question, user: user, hasher: hasher, caller: caller)
                if verdict != .right {
                    if verdict == .questionGone || counted.attempts >= limit {
                        _ = try await store.consumeToken(digest: record.digest, purpose: record.purpose, now: time)
                        return .spent
                    }
                    return .wrong(kind: kind, question: question, remaining: limit - counted.attempts)
                }
                try await store.clearPendingMFAQuestion(userID: user.id)
                try await store.release(Self.answerKey(user.id))
            }
            guard try await store.consumeToken(digest: record.digest, purpose: record.purpose, now: time) != nil else {
                return .invalid
            }
            let grant = SecureRandom.token()
            try await store.createToken(TokenRecord(digest: SecureRandom.digest(grant), purpose: kind.grantPurpose, userID: user.id,
                                                    deviceID: nil, createdAt: time,
                                                    expiresAt: time.addingTimeInterval(Self.grantLifetime)))
            return .granted(kind: kind, grant: grant)
        }
    }

    /// Sets the new credential under the issuer's rules. A refusal keeps the grant usable; success
    /// uses it up, restores a wallet locked by failures, and (for a password) ends every session.
    public func completeReset(grant: String, new: String, confirm: String, caller: Caller) async throws -> ResetCompletion {
        let store = self.store.recording(into: caller.audit)
        return try await admitted(1 + issuer.passwordHistory, for: caller) { hasher in
            guard let (record, kind, user) = try await liveToken(grant, \.grantPurpose) else { return .invalid }
            if user.locked { return .locked }
            let change: CredentialChange
            do {
                if new.isEmpty {
                    throw DomainError.invalidField("new", kind == .password ? "Enter the new password." : "Enter the new PIN.")
                }
                if new != confirm { throw DomainError.confirmationMismatch(field: "confirm") }
                switch kind {
                case .password:
                    try issuer.validateNewPassword(new, field: "new")
                    if try await verifier.recentlyUsed(new, by: user, hasher: hasher) { throw DomainError.passwordReused }
                    change = .password(hash: try await hasher.hash(new), keep: max(0, issuer.passwordHistory - 1))
                case .passcode:
                    try issuer.passcode.validate(new, field: "new")
                    change = .passcode(hash: try await hasher.hash(new))
                }
            } catch let error as DomainError {
                let reason: LocalizableText = error.code == .confirmationMismatch ? "The two entries differ." : error.text
                return .refused(kind: kind, error: reason)
            }
            let time = now()
            let notice = try outbox.resetNotice(kind, to: user, at: time)
            audit(.resetCompleted, user: user.id, details: ["credential": kind.rawValue], for: caller)
            guard try await store.completeReset(grant: record.digest, purpose: record.purpose, userID: user.id, change: change,
                                                limits: issuer.attemptLimits, messages: [notice], now: time) else {
                return .invalid
            }
            return .done(kind: kind)
        }
    }
}
