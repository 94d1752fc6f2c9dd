import Foundation

/// A second factor a wallet may enrol beside its password and PIN: the spec's MFA questions, a
/// passkey (WebAuthn), an authenticator app (RFC 6238 TOTP) or recovery codes. The raw values are
/// the wire's and the configuration's spelling.
public enum FactorKind: String, Codable, Sendable, CaseIterable, Comparable {
    case question, passkey, totp, recoveryCode

    /// The order factors are offered in (the MFA prompt's `factors`): the strongest first.
    public static let promptOrder: [FactorKind] = [.passkey, .totp, .question, .recoveryCode]

    public static func < (lhs: FactorKind, rhs: FactorKind) -> Bool {
        promptOrder.firstIndex(of: lhs)! < promptOrder.firstIndex(of: rhs)!
    }
}

/// What a login may have checked, for the issuer's step-up rule (`issuer.factors.stepUp`): a
/// session is privileged for credential changes when its login checked one of these.
public enum StepUpFactor: String, Codable, Sendable, CaseIterable {
    case password, pin, question, passkey, totp, recoveryCode
}
