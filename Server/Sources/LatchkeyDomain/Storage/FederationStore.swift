import Foundation

/// The single-use nonce `retrieveCustomerProfileMetaData` answers, bound to one provider subject.
public struct FederationNonceRecord: Sendable, Equatable {
    public var digest: String
    public var providerID: String
    public var subject: String
    /// The provider's email claim and whether the provider verified it.
    public var email: String?
    public var emailVerified: Bool
    public var createdAt: Date
    public var expiresAt: Date

    public init(digest: String, providerID: String, subject: String, email: String?, emailVerified: Bool, createdAt: Date,
                expiresAt: Date) {
        self.digest = digest
        self.providerID = providerID
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What SSO registration and federated login need from the database.
public protocol FederationStore: AuditingStore {
    /// Stores a nonce of `retrieveCustomerProfileMetaData`.
    func createFederationNonce(_ nonce: FederationNonceRecord) async throws
    /// A live (unused, unexpired) nonce, without using it.
    func federationNonce(digest: String, now: Date) async throws -> FederationNonceRecord?
    /// The wallet user linked to a provider subject.
    func federatedUser(providerID: String, subject: String) async throws -> UserRecord?
    /// `registerCustomer` in one transaction: uses the nonce (live and unused, else
    /// `StoreError.nonceNotUsable`, answered with nothing written), creates the user with its MFA
    /// answers, tokens and messages (`emailInUse`), and links it to the nonce's provider subject
    /// (`subjectLinked` when another wallet has it); with `replacingPending`, an unverified
    /// registration of the address is deleted first (`UserStore.createUser`). Answers the used nonce.
    func createFederatedUser(nonceDigest: String, user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                             messages: [OutboxMessage], replacingPending: Bool, now: Date) async throws -> FederationNonceRecord
}
