import Foundation

/// One factor a wallet has enrolled, as the factor listings show it (`GET /v1/factors`, the
/// admin API): its questions, each passkey, its confirmed authenticator app, its recovery codes.
public struct EnrolledFactor: Sendable, Equatable {
    /// The id of the wallet's questions.
    public static let questionsID = "questions"
    /// The id of the wallet's authenticator app.
    public static let totpID = "totp"
    /// The id of the wallet's recovery codes.
    public static let recoveryCodesID = "recovery-codes"

    /// `questions`, `totp`, `recovery-codes`, or a passkey's id.
    public var id: String
    public var kind: FactorKind
    /// A passkey's name.
    public var name: String?
    /// When it was enrolled: the questions with the wallet, the authenticator app when its first
    /// code confirmed it, the recovery codes when they were last generated.
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// Recovery codes not used yet.
    public var remaining: Int?
    /// Whether a passkey is backed up (synced) by its provider.
    public var backedUp: Bool?

    public init(id: String, kind: FactorKind, name: String? = nil, createdAt: Date, lastUsedAt: Date? = nil,
                remaining: Int? = nil, backedUp: Bool? = nil) {
        self.id = id
        self.kind = kind
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.remaining = remaining
        self.backedUp = backedUp
    }

    /// Whether it can still be used: recovery codes while one is unused.
    public var isUsable: Bool { remaining.map { $0 > 0 } ?? true }
}

/// What a wallet has enrolled, in the listings' order: questions, passkeys (oldest first), the
/// authenticator app, recovery codes.
public struct FactorInventory: Sendable, Equatable {
    public var factors: [EnrolledFactor]

    public init(factors: [EnrolledFactor]) {
        self.factors = factors
    }

    /// The kinds of the usable factors, for the prompt and the last-factor rule.
    public var kinds: [FactorKind] {
        factors.filter(\.isUsable).map(\.kind)
    }

    /// The usable kinds left once the factor `id` is gone (`FactorRules.requireRemovable`).
    public func kinds(without id: String) -> [FactorKind] {
        factors.filter { $0.id != id && $0.isUsable }.map(\.kind)
    }

    /// The factor `id`, if the wallet has it.
    public func factor(id: String) -> EnrolledFactor? {
        factors.first { $0.id == id }
    }
}
