import Foundation
import LatchkeyCore

/// The one owner of DPoP proof replay: a proof (its key's thumbprint and `jti`) is accepted once.
///
/// Every proof is checked against the proofs this process accepted within twice the proof window
/// (`ReplayCache`, in memory, no I/O). A proof whose reuse must be refused on every replica — a
/// credential call's (`recordProof` in its operation's policy), or one whose request opened a
/// sealed credential bound to it — is recorded in the database as well (`ProofStore`) for the same
/// time; a proof recorded there before is refused.
package struct ProofReplay: Sendable {
    private let seen: ReplayCache
    private let store: any ProofStore
    private let now: @Sendable () -> Date

    package init(store: any ProofStore, now: @escaping @Sendable () -> Date) {
        self.seen = ReplayCache(lifetime: Self.lifetime)
        self.store = store
        self.now = now
    }

    /// How long a proof is remembered: twice the window its `iat` may be off by, so it is
    /// remembered for as long as it could be accepted.
    package static let lifetime = 2 * DPoPVerifier.window

    /// Accepts `proof` once: refused when this process accepted it before, and, with
    /// `acrossReplicas`, when any replica recorded it; then recorded there too.
    /// - Throws: `DomainError(.invalidDPoPProof)` for a proof used before; the store's error.
    package func admit(_ proof: DPoPProof, acrossReplicas: Bool) async throws {
        guard seen.insert(proof.thumbprint + "." + proof.jti, at: now()) else { throw Self.usedBefore }
        if acrossReplicas { try await record(proof) }
    }

    /// Records across replicas a proof this process admitted alone (`admit(_:acrossReplicas: false)`),
    /// once its request turns out to need it (a sealed credential bound to it opened).
    /// - Throws: `DomainError(.invalidDPoPProof)` when a replica recorded it before; the store's error.
    package func record(_ proof: DPoPProof) async throws {
        let time = now()
        guard try await store.recordProof(digest: SecureRandom.digest(proof.thumbprint + "." + proof.jti),
                                          expiresAt: time.addingTimeInterval(Self.lifetime), now: time)
        else { throw Self.usedBefore }
    }

    private static var usedBefore: DomainError { DPoPVerifier.invalid("The DPoP proof was used before.") }
}
