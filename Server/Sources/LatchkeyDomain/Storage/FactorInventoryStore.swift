import Foundation

/// What a wallet has enrolled across the factor tables (`mfa_answers`, `passkeys`, confirmed
/// `totp_factors`, `recovery_codes`), read in one place for the prompt, the listings and the
/// last-factor rule.
public protocol FactorInventoryStore: Sendable {
    /// The wallet's factors (`FactorInventory`'s order); an unknown wallet has none.
    func factorInventory(userID: String) async throws -> FactorInventory

    /// Removes the wallet's factor `id` (a passkey's id; `EnrolledFactor.totpID`, the confirmed
    /// authenticator app; `EnrolledFactor.recoveryCodesID`, every recovery code) and queues
    /// `messages`, in one transaction that holds the wallet against every other removal of its
    /// factors, on any replica: the inventory is read again in it and given to `check`, whose
    /// error refuses the removal (nothing removed or queued). Two removals that would each leave
    /// a prompt factor but together none are so decided one after the other.
    /// - Returns: false (nothing removed or queued) when the wallet has no such factor.
    /// - Throws: what `check` throws; the engine's errors.
    func removeFactor(userID: String, id: String, messages: [OutboxMessage],
                      check: @escaping @Sendable (FactorInventory) throws -> Void) async throws -> Bool
}
