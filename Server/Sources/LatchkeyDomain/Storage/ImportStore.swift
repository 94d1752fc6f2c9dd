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

/// Users brought in by `latchkey users import`, a batch at a time.
public protocol ImportStore: AuditingStore {
    /// Writes one batch in one transaction: each user is created unless the issuer has a wallet
    /// with its address, which is skipped or, with `update`, overwritten (profile fields the line
    /// gave, credentials, verification; its sessions and device tokens end). Answers an outcome per
    /// user, in order. Each created or updated user gets an audit event in the same transaction; an
    /// overwritten password goes to the history, which keeps `keepPasswords`.
    func importUsers(_ users: [ImportedUser], update: Bool, keepPasswords: Int, now: Date) async throws -> [ImportOutcome]
}
