import Foundation

/// What a wallet has enrolled across the factor tables (`mfa_answers`, `passkeys`, confirmed
/// `totp_factors`, `recovery_codes`), read in one place for the prompt, the listings and the
/// last-factor rule.
public protocol FactorInventoryStore: Sendable {
    /// The wallet's factors (`FactorInventory`'s order); an unknown wallet has none.
    func factorInventory(userID: String) async throws -> FactorInventory
}
