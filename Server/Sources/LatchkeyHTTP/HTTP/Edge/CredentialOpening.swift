import Hummingbird
import LatchkeyContract
import LatchkeyDomain
import Tracing

/// Opens the sealed credentials of an operation with sealable fields (`CredentialUnsealer`)
/// before any handler or service reads its body, once the proof they are bound to is accepted. A
/// seal opens once: the proof of a request whose seal opened is recorded across replicas
/// (`ProofReplay`) where its operation's policy did not record it already.
package struct CredentialOpening: Sendable {
    package let unsealer: CredentialUnsealer
    package let replay: ProofReplay
    package let operationID: String
    /// The operation records its proofs anyway (`record` in the policy).
    package let proofRecorded: Bool
    package let maxBodyBytes: Int

    /// The opening of `policy`'s operation; nil for an operation the unsealer does not guard.
    package init?(unsealer: CredentialUnsealer, replay: ProofReplay, policy: OperationPolicy, maxBodyBytes: Int) {
        guard unsealer.guards(policy.operationID) else { return nil }
        self.unsealer = unsealer
        self.replay = replay
        self.operationID = policy.operationID
        self.proofRecorded = policy.recordProof
        self.maxBodyBytes = maxBodyBytes
    }

    /// The request with its sealed fields opened.
    /// - Throws: the unsealer's refusals (400 naming the field); `DomainError(.invalidDPoPProof)`
    ///   when a replica opened a seal under this proof before; the store's error.
    /// A span of its own (`seal.open`), saying whether the request carried a seal.
    package func open(_ request: Request, proof: DPoPProof?) async throws -> Request {
        try await Telemetry.span("seal.open") { span in
            let unsealed = try await unsealer.open(request, operationID: operationID, proof: proof, maxBytes: maxBodyBytes)
            span?.attributes["latchkey.sealed"] = unsealed.opened
            if unsealed.opened, !proofRecorded, let proof { try await replay.record(proof) }
            return unsealed.request
        }
    }
}
