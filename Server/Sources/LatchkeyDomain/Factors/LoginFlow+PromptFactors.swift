import Foundation
import LatchkeyCore

extension LoginFlow {
    /// The factors the MFA prompt offers this wallet: those it has enrolled that the issuer accepts
    /// from an unlinked device (`issuer.factors.unknownDevice`), in `FactorKind.promptOrder`.
    /// Recovery codes count while one is unused; an authenticator app once confirmed.
    package func promptFactors(for user: UserRecord) async throws -> [FactorKind] {
        FactorRules(issuer.factors).promptFactors(enrolled: try await store.factorInventory(userID: user.id).kinds)
    }
}
