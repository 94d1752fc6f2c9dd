import Foundation
import LatchkeyDomain

extension SQLStore {
    public func recordProof(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        // Expired records are dropped by about one insert in 64, so the table stays the size of the
        // proof window without a separate job.
        if UInt8.random(in: 0...63) == 0 {
            try await engine.execute("DELETE FROM dpop_proofs WHERE expires_at < $1", [now.epochSeconds])
        }
        let inserted = try await engine.query("""
            INSERT INTO dpop_proofs (digest, expires_at) VALUES ($1, $2)
            ON CONFLICT (digest) DO UPDATE SET expires_at = excluded.expires_at WHERE dpop_proofs.expires_at < $3
            RETURNING digest
            """, [.text(digest), expiresAt.epochSeconds, now.epochSeconds])
        return !inserted.isEmpty
    }
}
