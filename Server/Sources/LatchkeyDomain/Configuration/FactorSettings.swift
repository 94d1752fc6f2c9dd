import Foundation

/// The issuer's factor rules (`issuer.factors`): which second factors a wallet may enrol, which
/// answer the MFA prompt of a device not linked to the wallet, which make a login's session
/// privileged for credential changes, and whether a wallet must keep one prompt factor.
public struct FactorSettings: Codable, Sendable, Equatable {
    /// What a wallet may enrol.
    public var enrol: [FactorKind] = FactorKind.allCases
    /// What answers the MFA prompt of an unlinked device.
    public var unknownDevice: [FactorKind] = FactorKind.allCases
    /// What a login must have checked for its session to be privileged (`sessions.privilegedSeconds`).
    public var stepUp: [StepUpFactor] = StepUpFactor.allCases
    /// Whether a wallet keeps at least one factor that answers the prompt (its last cannot be removed).
    public var required = true
    public init() {}
}
