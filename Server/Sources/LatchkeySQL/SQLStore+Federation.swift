import Foundation
import LatchkeyDomain

extension SQLStore {
    public func createFederationNonce(_ nonce: FederationNonceRecord) async throws {
        try await engine.execute("""
            INSERT INTO federation_nonces (digest, provider_id, subject, email, email_verified, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [.text(nonce.digest), .text(nonce.providerID), .text(nonce.subject), nonce.email.sql,
                  .integer(nonce.emailVerified ? 1 : 0), nonce.createdAt.epochSeconds, nonce.expiresAt.epochSeconds])
    }

    public func federationNonce(digest: String, now: Date) async throws -> FederationNonceRecord? {
        try await engine.read("SELECT * FROM federation_nonces WHERE digest = $1 AND used_at IS NULL AND expires_at > $2",
                               [.text(digest), now.epochSeconds]).first.map { try FederationNonceRecord(row: $0, digest: digest) }
    }

    public func federatedUser(providerID: String, subject: String) async throws -> UserRecord? {
        try await engine.read("""
            SELECT users.* FROM federated_identities JOIN users ON users.id = federated_identities.user_id
            WHERE federated_identities.provider_id = $1 AND federated_identities.subject = $2
            """, [.text(providerID), .text(subject)]).first.map { try UserRecord(row: $0) }
    }

    public func createFederatedUser(nonceDigest: String, user: UserRecord, answers: [MFAAnswerRecord], tokens: [TokenRecord],
                                    messages: [OutboxMessage], replacingPending: Bool, now: Date) async throws -> FederationNonceRecord {
        do {
            let (nonce, replaced) = try await engine.transaction { db in
                guard let row = try await db.query("""
                    UPDATE federation_nonces SET used_at = $2 WHERE digest = $1 AND used_at IS NULL AND expires_at > $2 RETURNING *
                    """, [.text(nonceDigest), now.epochSeconds]).first else { throw StoreError.nonceNotUsable }
                let nonce = try FederationNonceRecord(row: row, digest: nonceDigest)
                let replaced = replacingPending ? try await Self.deletePendingRegistration(replacedBy: user, in: db) : []
                try await Self.insert(user, into: db)
                try await db.execute("""
                    INSERT INTO federated_identities (provider_id, subject, user_id, created_at) VALUES ($1, $2, $3, $4)
                    """, [.text(nonce.providerID), .text(nonce.subject), .text(user.id), now.epochSeconds])
                try await Self.insert(answers, userID: user.id, into: db)
                for token in tokens { try await Self.insert(token, into: db) }
                for message in messages { try await Self.insert(message, into: db) }
                return (nonce, replaced)
            }
            for id in replaced { sessions.remove(userID: id, deviceID: nil) }
            return nonce
        } catch SQLEngineError.uniqueViolation(.userEmail) {
            throw StoreError.emailInUse
        } catch SQLEngineError.uniqueViolation(.federatedSubject) {
            throw StoreError.subjectLinked
        }
    }
}
