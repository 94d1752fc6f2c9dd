import Foundation

/// The issuer's factor rules (`issuer.factors`): which second factors a wallet may enrol, which
/// answer the MFA prompt of a device not linked to the wallet, which make a login's session
/// privileged for credential changes, and whether a wallet must keep one prompt factor.
/// `FactorRules` turns them into decisions.
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

    /// Refuses rules that contradict each other or the issuer's other settings (`latchkey config
    /// check`). `publicURL` is the configured public URL (nil when unset), whose host is the
    /// passkeys' relying party unless `passkeys.rpID` names one and whose origin is their origin
    /// unless `passkeys.origins` names them.
    /// - Throws: `ConfigurationError` naming the key at fault.
    public func validate(passkeys: PasskeySettings, publicURL: String?) throws {
        func require(_ condition: Bool, _ key: String, _ message: String) throws {
            if !condition { throw ConfigurationError(key: "issuer.factors." + key, message: message) }
        }
        try require(Set(enrol).count == enrol.count, "enrol", "Each factor may be named once.")
        try require(Set(unknownDevice).count == unknownDevice.count, "unknownDevice", "Each factor may be named once.")
        try require(Set(stepUp).count == stepUp.count, "stepUp", "Each factor may be named once.")
        // Registration (the spec's registerWallet) stores the wallet's MFA answers and the
        // questions' settings (`issuer.mfa`) stay in force, so every wallet has questions.
        try require(enrol.contains(.question), "enrol",
                    "Must contain question: registration stores every wallet's MFA answers (issuer.mfa). "
                        + "Leave question out of unknownDevice to stop accepting them at the prompt.")
        if let kind = unknownDevice.first(where: { !enrol.contains($0) }) {
            try require(false, "unknownDevice", "\(kind.rawValue) is not in issuer.factors.enrol, so no wallet could answer with it.")
        }
        if let factor = stepUp.first(where: { FactorKind(rawValue: $0.rawValue).map { !enrol.contains($0) } ?? false }) {
            try require(false, "stepUp", "\(factor.rawValue) is not in issuer.factors.enrol, so no login could check it.")
        }
        try require(!stepUp.isEmpty, "stepUp",
                    "Must name at least one factor: without one no session is privileged and no credential could be changed.")
        try require(!required || !unknownDevice.isEmpty, "required",
                    "No factor answers the prompt (issuer.factors.unknownDevice is empty), so no wallet could keep one.")
        if enrol.contains(.passkey) { try validateRelyingParty(passkeys, publicURL: publicURL) }
    }

    /// A passkey is bound to its relying party id, which must be the host of every web origin a
    /// ceremony may come from or a registrable suffix of it (WebAuthn §5.1.4.1, §13.4.9). Checked
    /// when both are known: without `publicURL` the server's address (and so a default relying
    /// party or origin) is a development guess, learnt only once it is bound.
    private func validateRelyingParty(_ passkeys: PasskeySettings, publicURL: String?) throws {
        guard let rpID = (passkeys.rpID ?? publicURL.flatMap { URL(string: $0)?.host })?.lowercased() else { return }
        // A domain of at least two labels (or localhost, for development): a single label would
        // be a top-level domain, which WebAuthn clients refuse as a relying party.
        guard !rpID.isEmpty, !rpID.hasPrefix("."), !rpID.hasSuffix("."), rpID.contains(".") || rpID == "localhost" else {
            throw ConfigurationError(key: "issuer.passkeys.rpID",
                                     message: "Must be a domain with a dot, or localhost (the default is publicURL's host).")
        }
        let origins = passkeys.origins.isEmpty ? publicURL.map { [$0] } ?? [] : passkeys.origins
        for origin in origins where !origin.hasPrefix("android:apk-key-hash:") {
            guard let url = URL(string: origin), ["https", "http"].contains(url.scheme ?? ""), let host = url.host?.lowercased() else {
                throw ConfigurationError(key: "issuer.passkeys.origins",
                                         message: "\(origin) must be an http(s) origin or an android:apk-key-hash: origin.")
            }
            if host != rpID && !host.hasSuffix("." + rpID) {
                throw ConfigurationError(key: "issuer.passkeys.rpID",
                                         message: "\(rpID) must be \(host) or a suffix of it (the origin \(origin)).")
            }
        }
    }
}
