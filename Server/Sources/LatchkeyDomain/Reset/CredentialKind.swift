import Foundation
import LatchkeyCore

/// Which forgotten credential a reset sets.
public enum CredentialKind: String, Sendable, CaseIterable {
    case password
    case passcode

    /// The purpose of the emailed link.
    package var linkPurpose: TokenPurpose { self == .password ? .passwordReset : .passcodeReset }
    /// The purpose of the grant a right answer earns.
    package var grantPurpose: TokenPurpose { self == .password ? .passwordResetGrant : .passcodeResetGrant }
    /// The word users read: "password" or "PIN".
    public var displayName: String { self == .password ? "password" : "PIN" }
}

/// What a reset link shows when it is opened.
public enum ResetLinkState: Sendable, Equatable {
    /// The link works: ask this question (nil when the wallet has no MFA answers: go straight to the form).
    case question(kind: CredentialKind, question: String?)
    /// Unknown, used or expired.
    case invalid
    /// An operator locked the account (424).
    case locked
    /// The account used its answers for now: no answer is checked before this time.
    case resting(until: Date)
}

/// The result of answering the question of a reset link.
public enum ResetAnswerOutcome: Sendable, Equatable {
    /// Right: the form may set the credential with this single-use grant.
    case granted(kind: CredentialKind, grant: String)
    /// Wrong; the link takes `remaining` more answers.
    case wrong(kind: CredentialKind, question: String, remaining: Int)
    /// Wrong, and that was the link's last chance.
    case spent
    /// Unknown, used or expired.
    case invalid
    /// An operator locked the account (424).
    case locked
    /// The account used its answers for now: this one was not checked.
    case resting(until: Date)
}

/// The result of submitting the new credential.
public enum ResetCompletion: Sendable, Equatable {
    /// The credential is set.
    case done(kind: CredentialKind)
    /// The new value breaks a rule; the grant still works.
    case refused(kind: CredentialKind, error: LocalizableText)
    /// The grant is unknown, used or expired.
    case invalid
    /// An operator locked the account (424).
    case locked
}
