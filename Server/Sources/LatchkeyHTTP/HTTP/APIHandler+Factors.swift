import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The issuer's factor rules and the wallet's factors.
extension APIHandler {
    package func retrieveFactorPolicy(_ input: Operations.RetrieveFactorPolicy.Input) async throws -> Operations.RetrieveFactorPolicy.Output {
        .ok(.init(body: .json(factorPolicy)))
    }

    package func listFactors(_ input: Operations.ListFactors.Input) async throws -> Operations.ListFactors.Output {
        let inventory = try await authentication.factors(of: try caller.identity.require())
        let factors = inventory.factors.map { factor in
            Components.Schemas.Factor(id: factor.id, kind: wire(factor.kind), name: factor.name, createdAt: factor.createdAt,
                                      lastUsedAt: factor.lastUsedAt, remaining: factor.remaining, backedUp: factor.backedUp)
        }
        return .ok(.init(body: .json(.init(factors: factors, policy: factorPolicy))))
    }

    /// The issuer's factor rules as the wallet API shows them; the relying party of passkeys when
    /// they may be enrolled (read per request: a server on port 0 learns its public URL once bound).
    var factorPolicy: Components.Schemas.FactorPolicy {
        let rules = authentication.factorRules.settings
        let party = rules.enrol.contains(.passkey) ? passkeys.ceremonies.relyingParty : nil
        return .init(enrollable: rules.enrol.map(wire), unknownDevice: rules.unknownDevice.map(wire),
                     stepUp: rules.stepUp.compactMap { .init(rawValue: $0.rawValue) }, required: rules.required,
                     passkeys: party.map { .init(rpId: $0.id, rpName: $0.name) })
    }

    func wire(_ kind: FactorKind) -> Components.Schemas.FactorKind {
        Components.Schemas.FactorKind(rawValue: kind.rawValue)!
    }
}
