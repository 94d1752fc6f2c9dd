import Foundation
import LatchkeyCore
import LatchkeyDomain

/// `PasskeyStore` on both engines. Credential ids and public keys are stored base64url, the
/// transports comma-separated.
extension SQLStore {
    public func addPasskey(_ passkey: PasskeyRecord, messages: [OutboxMessage]) async throws {
        do {
            try await engine.transaction { db in
                try await db.execute("""
                    INSERT INTO passkeys (id, user_id, credential_id, public_key, algorithm, sign_count, backup_eligible,
                                          backup_state, aaguid, transports, attestation_format, name, created_at, last_used_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                    """, [.text(passkey.id), .text(passkey.userID), .text(Base64URL.encode(passkey.credentialID)),
                          .text(Base64URL.encode(passkey.publicKey)), .integer(Int64(passkey.algorithm)),
                          .integer(Int64(passkey.signCount)), .integer(passkey.backupEligible ? 1 : 0),
                          .integer(passkey.backedUp ? 1 : 0), passkey.aaguid.map { $0.uuidString.lowercased() }.sql,
                          passkey.transports.isEmpty ? .null : .text(passkey.transports.joined(separator: ",")),
                          .text(passkey.attestationFormat), .text(passkey.name), passkey.createdAt.epochSeconds,
                          passkey.lastUsedAt?.epochSeconds ?? .null])
                for message in messages { try await Self.insert(message, into: db) }
            }
        } catch SQLEngineError.uniqueViolation(.other(let name))
            where name == "passkeys_credential_id_key" || name == "passkeys.credential_id" {
            throw PasskeyStoreError.credentialInUse
        }
    }

    public func passkeys(userID: String) async throws -> [PasskeyRecord] {
        try await engine.read("SELECT * FROM passkeys WHERE user_id = $1 ORDER BY created_at, id", [.text(userID)])
            .map { try PasskeyRecord(row: $0) }
    }

    public func passkey(credentialID: Data) async throws -> PasskeyRecord? {
        try await engine.read("SELECT * FROM passkeys WHERE credential_id = $1", [.text(Base64URL.encode(credentialID))])
            .first.map { try PasskeyRecord(row: $0) }
    }

    public func renamePasskey(id: String, userID: String, name: String) async throws -> PasskeyRecord? {
        try await engine.query("UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING *",
                               [.text(id), .text(userID), .text(name)]).first.map { try PasskeyRecord(row: $0) }
    }

    public func usePasskey(id: String, expectedSignCount: UInt32, signCount: UInt32, backedUp: Bool, now: Date) async throws -> Bool {
        !(try await engine.query("""
            UPDATE passkeys SET sign_count = $3, backup_state = $4, last_used_at = $5
            WHERE id = $1 AND sign_count = $2 RETURNING id
            """, [.text(id), .integer(Int64(expectedSignCount)), .integer(Int64(signCount)), .integer(backedUp ? 1 : 0),
                  now.epochSeconds])).isEmpty
    }

    public func createPasskeyChallenge(_ challenge: PasskeyChallengeRecord) async throws {
        // Expired challenges are dropped by about one insert in 64, so the table stays the size
        // of the challenges in flight without a separate job.
        if UInt8.random(in: 0...63) == 0 {
            try await engine.execute("DELETE FROM webauthn_challenges WHERE expires_at < $1", [challenge.createdAt.epochSeconds])
        }
        try await engine.execute("""
            INSERT INTO webauthn_challenges (digest, purpose, user_id, device_id, data, created_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [.text(challenge.digest), .text(challenge.purpose.rawValue), challenge.userID.sql, challenge.deviceID.sql,
                  challenge.data.sql, challenge.createdAt.epochSeconds, challenge.expiresAt.epochSeconds])
    }

    public func consumePasskeyChallenge(digest: String, purpose: PasskeyChallengePurpose, now: Date) async throws -> PasskeyChallengeRecord? {
        // One DELETE … RETURNING: of two requests with the same challenge, on any replicas, one
        // gets the row. An expired one is deleted too, and answers nothing.
        guard let row = try await engine.query("DELETE FROM webauthn_challenges WHERE digest = $1 AND purpose = $2 RETURNING *",
                                               [.text(digest), .text(purpose.rawValue)]).first else { return nil }
        let challenge = PasskeyChallengeRecord(
            digest: try row.string("digest"), purpose: purpose, userID: try row.optionalString("user_id"),
            deviceID: try row.optionalString("device_id"), data: try row.optionalString("data"),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
        return challenge.expiresAt > now ? challenge : nil
    }
}

extension PasskeyRecord {
    init(row: SQLRow) throws {
        func bytes(_ column: String) throws -> Data {
            guard let data = Base64URL.decode(try row.string(column)) else {
                throw StoreError.undecodableRow(column: column, reason: "not base64url")
            }
            return data
        }
        self.init(id: try row.string("id"), userID: try row.string("user_id"), credentialID: try bytes("credential_id"),
                  publicKey: try bytes("public_key"), algorithm: try row.integer("algorithm"),
                  signCount: UInt32(clamping: try row.integer("sign_count")), backupEligible: try row.integer("backup_eligible") != 0,
                  backedUp: try row.integer("backup_state") != 0, aaguid: try row.optionalString("aaguid").flatMap(UUID.init(uuidString:)),
                  transports: (try row.optionalString("transports") ?? "").split(separator: ",").map(String.init),
                  attestationFormat: try row.optionalString("attestation_format") ?? "none", name: try row.string("name"),
                  createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"))
    }
}
