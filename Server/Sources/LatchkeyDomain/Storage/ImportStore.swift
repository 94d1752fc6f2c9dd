import Foundation

/// A user as an import brings it: the record, its hashes made, and its MFA answers.
public struct ImportedUser: Sendable, Equatable {
    public var user: UserRecord
    /// nil when the line gave none (an update keeps the stored ones).
    public var answers: [MFAAnswerRecord]?

    public init(user: UserRecord, answers: [MFAAnswerRecord]?) {
        self.user = user
        self.answers = answers
    }
}

/// What an import did with one user.
public enum ImportOutcome: Sendable, Equatable {
    /// A new wallet.
    case created
    /// The address had a wallet, overwritten (`--update`).
    case updated
    /// The address had a wallet, left as it was.
    case skipped
}

/// A credential an import with `update` replaced: its event and the name its security notice
/// gives it (as the API's own changes name them).
public enum ImportedCredential: Sendable, Equatable, CaseIterable {
    case password, passcode, mfaAnswers

    /// The event recorded about the user (with the detail `by: import`).
    public var event: AuditEventType {
        switch self {
        case .password: .passwordChanged
        case .passcode: .passcodeChanged
        case .mfaAnswers: .mfaAnswersChanged
        }
    }

    /// What the security notice says was changed.
    package var securityChange: SecurityChange {
        switch self {
        case .password: .password
        case .passcode: .passcode
        case .mfaAnswers: .securityQuestions
        }
    }
}

/// The sealed security notices of an update that replaced `replaced` of the wallet of `user` (the
/// imported record: its address is the wallet's), written in the update's transaction.
public typealias ImportNotices = @Sendable (_ user: UserRecord, _ replaced: [ImportedCredential]) throws -> [OutboxMessage]

/// Users brought in by `latchkey users import`, a batch at a time.
public protocol ImportStore: AuditingStore {
    /// Writes one batch in one transaction: each user is created unless the issuer has a wallet
    /// with its address, which is skipped or, with `update`, overwritten (profile fields the line
    /// gave, credentials, verification; its sessions and device tokens end). Answers an outcome per
    /// user, in order. Each created or updated user gets an audit event in the same transaction; an
    /// overwritten password goes to the history, which keeps `keepPasswords`. A credential whose
    /// stored hash (or set of answers) the update replaces with another is an event of its own
    /// (`password.changed`, `passcode.changed`, `mfa_answers.changed`, `by: import`) and the
    /// notices `notices` seals, sent to the wallet's address, in the same transaction.
    func importUsers(_ users: [ImportedUser], update: Bool, keepPasswords: Int, notices: @escaping ImportNotices,
                     now: Date) async throws -> [ImportOutcome]
}
