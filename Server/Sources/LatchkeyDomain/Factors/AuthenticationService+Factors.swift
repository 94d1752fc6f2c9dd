import Foundation
import LatchkeyCore

extension AuthenticationService {
    /// The issuer's factor rules (`issuer.factors`).
    public var factorRules: FactorRules { FactorRules(issuer.factors) }

    /// The session's wallet's factors: its questions, passkeys, confirmed authenticator app and
    /// recovery codes (with the number unused).
    public func factors(of principal: Principal) async throws -> FactorInventory {
        try await logins.store.factorInventory(userID: principal.userID)
    }
}
