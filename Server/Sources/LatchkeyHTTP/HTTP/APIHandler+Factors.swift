import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

/// The issuer's factor rules and the wallet's factors.
extension APIHandler {
    package func retrieveFactorPolicy(_ input: Operations.RetrieveFactorPolicy.Input) async throws -> Operations.RetrieveFactorPolicy.Output {
        throw DomainError(.factorNotOffered)
    }

    package func listFactors(_ input: Operations.ListFactors.Input) async throws -> Operations.ListFactors.Output {
        throw DomainError(.factorNotOffered)
    }
}
