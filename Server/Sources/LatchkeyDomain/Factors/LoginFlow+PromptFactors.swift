import Foundation
import LatchkeyCore

extension LoginFlow {
    /// The factors the MFA prompt offers this wallet: those it has enrolled that the issuer accepts
    /// from an unlinked device (`issuer.factors.unknownDevice`), in `FactorKind.promptOrder`.
    package func promptFactors(for user: UserRecord) async throws -> [FactorKind] {
        // Placeholder until the factor rules land: the spec's question only.
        [.question]
    }
}
