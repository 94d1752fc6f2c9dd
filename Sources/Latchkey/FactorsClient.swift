import Foundation
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

/// The wallet's second factors: passkeys, an authenticator app, recovery codes (and the spec's
/// questions, changed with `EnrollmentClient.updateMfaAnswers`). Every call but ``policy()`` needs
/// a session; enrolling and removing need a privileged one (a recent login that checked a factor of
/// the issuer's `stepUp`), else `LatchkeyError` of kind `.reauthenticationRequired`. Errors are in
/// the domain ``ErrorDomain/factors``.
public struct FactorsClient: Sendable {
    let context: LatchkeyContext
    let api: Client

    /// The issuer's factor rules, without a session (what a sign-up screen may offer).
    public func policy() async throws(LatchkeyError) -> FactorPolicy {
        try await context.call(.factors) { FactorPolicy(try await api.retrieveFactorPolicy().ok.body.json) }
    }

    /// The wallet's factors (questions first, then passkeys oldest first, the authenticator app,
    /// recovery codes) and the issuer's rules.
    public func list() async throws(LatchkeyError) -> (factors: [Factor], policy: FactorPolicy) {
        try await context.call(.factors) {
            let list = try await api.listFactors().ok.body.json
            return (list.factors.map(Factor.init), FactorPolicy(list.policy))
        }
    }

    // MARK: Passkeys

    /// Starts a passkey registration: the options to give the authenticator
    /// (`PasskeyAuthenticator.register(_:)`), then ``registerPasskey(_:name:)`` with its answer.
    public func passkeyRegistrationOptions() async throws(LatchkeyError) -> PasskeyRegistrationOptions {
        let wire = try await context.call(.factors) { try await api.startPasskeyRegistration().ok.body.json.publicKey }
        return try PasskeyRegistrationOptions(wire, defaultRelyingPartyID: context.serverURL.host, domain: .factors)
    }

    /// Finishes a passkey registration. Throws `LatchkeyError` id `.passkeyRejected` when the
    /// server cannot verify the answer (another challenge, another domain).
    public func registerPasskey(_ registration: PasskeyRegistration, name: String? = nil) async throws(LatchkeyError) -> Passkey {
        try await context.call(.factors) {
            Passkey(try await api.registerPasskey(body: .json(.init(credential: registration.wire, name: name))).created.body.json)
        }
    }

    /// The wallet's passkeys, oldest first.
    public func passkeys() async throws(LatchkeyError) -> [Passkey] {
        try await context.call(.factors) { try await api.listPasskeys().ok.body.json.passkeys.map(Passkey.init) }
    }

    /// Renames one of the wallet's passkeys (1 to 64 characters).
    public func renamePasskey(_ id: String, to name: String) async throws(LatchkeyError) -> Passkey {
        try await context.call(.factors) {
            Passkey(try await api.renamePasskey(path: .init(passkeyId: id), body: .json(.init(name: name))).ok.body.json)
        }
    }

    /// Removes one of the wallet's passkeys (`.lastFactor` when the issuer requires it as the last
    /// factor that links a new phone). The passkey stays in the user's password manager: tell the
    /// user to delete it there too.
    public func removePasskey(_ id: String) async throws(LatchkeyError) {
        try await context.call(.factors) { _ = try await api.removePasskey(path: .init(passkeyId: id)).noContent }
    }

    // MARK: Authenticator app

    /// Starts enrolling an authenticator app; it answers the MFA prompt once confirmed. A new call
    /// replaces one not confirmed yet; `.factorAlreadyEnrolled` when one is confirmed.
    public func enrollTOTP() async throws(LatchkeyError) -> TOTPEnrollment {
        try await context.call(.factors) {
            let enrollment = try await api.enrollTOTP().created.body.json
            return TOTPEnrollment(uri: enrollment.uri, secret: enrollment.secret)
        }
    }

    /// Confirms the pending authenticator app with a code it shows.
    public func confirmTOTP(_ code: String) async throws(LatchkeyError) {
        try await context.call(.factors) { _ = try await api.confirmTOTP(body: .json(.init(code: code))).noContent }
    }

    /// Removes the authenticator app (`.lastFactor` as for passkeys).
    public func removeTOTP() async throws(LatchkeyError) {
        try await context.call(.factors) { _ = try await api.removeTOTP().noContent }
    }

    // MARK: Recovery codes

    /// Ten new single-use recovery codes, replacing any earlier ones. The server keeps only their
    /// hashes: show them once for the user to write down, and keep them nowhere.
    public func generateRecoveryCodes() async throws(LatchkeyError) -> [String] {
        try await context.call(.factors) { try await api.generateRecoveryCodes().created.body.json.codes }
    }

    /// Removes the recovery codes (`.lastFactor` as for passkeys).
    public func removeRecoveryCodes() async throws(LatchkeyError) {
        try await context.call(.factors) { _ = try await api.removeRecoveryCodes().noContent }
    }
}
