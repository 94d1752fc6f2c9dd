import Foundation
import LatchkeyCore

/// The issuer's factor rules (`issuer.factors`) as decisions: whether a factor may be enrolled,
/// whether one may be removed, which enrolled factors answer the MFA prompt, and whether a login
/// makes its session privileged. Every service that enrols, removes or checks a factor asks here,
/// so the rules live in one place.
public struct FactorRules: Sendable, Equatable {
    public let settings: FactorSettings

    public init(_ settings: FactorSettings) {
        self.settings = settings
    }

    /// Refuses a factor the issuer does not let wallets enrol (`issuer.factors.enrol`).
    /// - Throws: `DomainError(.factorNotOffered)` (404).
    public func requireEnrollable(_ kind: FactorKind) throws(DomainError) {
        guard settings.enrol.contains(kind) else { throw DomainError(.factorNotOffered) }
    }

    /// Refuses removing a factor of `kind` when the issuer requires a prompt factor
    /// (`issuer.factors.required`), the factor answers the prompt, and nothing the wallet would
    /// still have (`remaining`) does. Removing a factor that never answered the prompt is allowed
    /// even from a wallet that has no prompt factor: it takes nothing away.
    /// - Parameter remaining: the usable factors the wallet keeps after the removal (another
    ///   passkey counts; recovery codes count while one is unused).
    /// - Throws: `DomainError(.lastFactor)` (409).
    public func requireRemovable(_ kind: FactorKind, remaining: [FactorKind]) throws(DomainError) {
        guard settings.required, answersPrompt(kind) else { return }
        if !remaining.contains(where: answersPrompt) { throw DomainError(.lastFactor) }
    }

    /// Refuses removing the factor `id` from a wallet that has `inventory`, as
    /// `requireRemovable(_:remaining:)` does with what the wallet keeps. A factor that can no
    /// longer be used (recovery codes all used) takes nothing away: it is always removable.
    /// - Throws: `DomainError(.lastFactor)` (409).
    public func requireRemovable(_ id: String, from inventory: FactorInventory) throws(DomainError) {
        guard let factor = inventory.factor(id: id), factor.isUsable else { return }
        try requireRemovable(factor.kind, remaining: inventory.kinds(without: id))
    }

    /// Whether a factor of `kind` answers the MFA prompt of an unlinked device.
    public func answersPrompt(_ kind: FactorKind) -> Bool {
        settings.unknownDevice.contains(kind)
    }

    /// The factors the MFA prompt offers a wallet that has `enrolled`: those the issuer accepts
    /// from an unlinked device, each once, in `FactorKind.promptOrder`.
    public func promptFactors(enrolled: some Sequence<FactorKind>) -> [FactorKind] {
        let enrolled = Set(enrolled)
        return FactorKind.promptOrder.filter { enrolled.contains($0) && answersPrompt($0) }
    }

    /// Whether a login by `method` makes its session privileged for
    /// `issuer.sessions.privilegedSeconds` (`issuer.factors.stepUp`): the factor it checked is
    /// one of the step-up factors. A login that checked no secret (the registration nonce, the
    /// device token, an outside provider) never does, whatever the list says.
    public func privileged(method: LoginMethod) -> Bool {
        method.checkedFactor.map(settings.stepUp.contains) ?? false
    }
}
