import Hummingbird
import LatchkeyContract
import LatchkeyCore
import LatchkeyDomain

/// The DPoP proof of a request (RFC 9449), under its operation's policy: verified
/// (`DPoPVerifier`: signature, method, URL, age, access-token hash, and the server's nonce where
/// the operation asks for one), then accepted once (`ProofReplay`: in this process, and on every
/// replica for an operation that records its proofs).
package struct ProofCheck: Sendable {
    package let verifier: DPoPVerifier
    package let replay: ProofReplay
    /// A proof must carry the server's current nonce for its key (`nonce` in the policy).
    package let requiresNonce: Bool
    /// The proof is recorded across replicas (`record` in the policy).
    package let recordsProof: Bool

    package init(verifier: DPoPVerifier, replay: ProofReplay, policy: OperationPolicy) {
        self.verifier = verifier
        self.replay = replay
        self.requiresNonce = policy.nonce
        self.recordsProof = policy.recordProof
    }

    /// The request's proof, verified and accepted; nil when it sends none.
    /// - Parameter values: the request's `DPoP` fields (`EdgeHeaders.proofs`).
    /// - Throws: `DomainError(.invalidDPoPProof)` (`DPoP` named) for a proof that does not verify,
    ///   was used before, or is missing where the token is sent as `DPoP`; `DPoPNonceRequired`
    ///   for one without the current nonce where it is required; the proof store's error.
    package func proof(_ values: [String], of request: Request, credential: SessionCredential?) async throws -> DPoPProof? {
        guard let proof = values.first else {
            if credential?.scheme == .dpop { throw DomainError(.invalidDPoPProof, message: "Authorization: DPoP needs a DPoP proof.", field: "DPoP") }
            return nil
        }
        guard values.count == 1 else { throw DomainError(.invalidDPoPProof, message: "Send one DPoP proof.", field: "DPoP") }
        // A token sent as DPoP or in Kratos's header with a proof must be the one the proof hashes
        // (`ath`); only a bearer token, which a proof does not bind, is left out.
        let verified = try await verifier.verify(proof, method: request.method.rawValue, path: request.uri.path,
                                                 accessToken: credential.flatMap { $0.scheme == .bearer ? nil : $0.token },
                                                 requireNonce: requiresNonce)
        try await replay.admit(verified, acrossReplicas: recordsProof)
        return verified
    }
}
