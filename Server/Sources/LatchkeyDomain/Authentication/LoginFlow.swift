import Foundation
import LatchkeyCore

/// How every login ends, built once and shared by the wallet API's logins, the Kratos-compatible
/// login (`SignupService`) and SSO (`FederationService`): the password login as one operation
/// (`passwordLogin`), then the device — linked and usable, linked now, or prompted for an MFA
/// answer — and the session. Knows no HTTP.
public struct LoginFlow: Sendable {
    /// What a login reads and writes: users, lockout counters, devices, sessions, challenges.
    public typealias Store = UserStore & AttemptStore & DeviceStore & SessionStore & CredentialStore & PasskeyStore & OneTimeFactorStore & FactorInventoryStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Checks credentials under the rate limits and the lockout rules.
    package let verifier: CredentialVerifier
    /// Opens sessions.
    package let sessions: SessionIssuer
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date
    /// The relying party and challenges of the prompt's passkey answer.
    package let passkeys: PasskeyCeremonies
    /// Writes the security notice of a recovery code used at the prompt.
    package let outbox: OutboxWriter

    /// How long an MFA challenge may be answered.
    package static let challengeLifetime: TimeInterval = 300

    /// Links a device to the wallet; a device key linked to another wallet is refused (409).
    package func link(_ user: UserRecord, deviceID: String, device: DeviceContext, caller: Caller) async throws {
        let store = self.store.recording(into: caller.audit)
        audit(.deviceLinked, user: user.id, deviceID: deviceID, details: device.label.map { ["label": $0] } ?? [:], for: caller)
        do {
            try await store.linkDevice(userID: user.id, deviceID: deviceID, deviceType: device.deviceType, label: device.label,
                                       now: now())
        } catch StoreError.deviceKeyInUse {
            throw DomainError(.deviceKeyInUse, field: "DPoP")
        }
    }

    /// Logs the user in on a linked device, or prompts for an MFA answer on an unlinked one.
    package func finish(_ user: UserRecord, device: DeviceContext, linkDevice: Bool = false, method: LoginMethod, caller: Caller) async throws -> LoginOutcome {
        guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
        if let linked = try await store.device(userID: user.id, deviceID: deviceID) {
            try CredentialVerifier.requireUsable(linked)
        } else if linkDevice {
            try await link(user, deviceID: deviceID, device: device, caller: caller)
        } else {
            return .mfaRequired(try await prompt(user, deviceID: deviceID, caller: caller))
        }
        return try await sessions.start(user, device: device, method: method, caller: caller)
    }

    /// Creates the MFA challenge of an unlinked device: the factors the wallet may answer with
    /// (`promptFactors`), the pending question when questions are among them
    /// (`CredentialVerifier.pendingQuestion`), a passkey's request options when passkeys are. The
    /// challenge token (bound to the device, single use) carries the question in its `data`.
    /// Throws `wrongCredentials` when the wallet has no factor the issuer accepts here.
    package func prompt(_ user: UserRecord, deviceID: String, caller: Caller) async throws -> MFAPrompt {
        let store = self.store.recording(into: caller.audit)
        var factors = try await promptFactors(for: user)
        var question: String?
        if factors.contains(.question) {
            question = try await verifier.pendingQuestion(for: user)
            if question == nil { factors.removeAll { $0 == .question } }
        }
        guard !factors.isEmpty else { throw DomainError.wrongCredentials }
        let token = SecureRandom.token()
        let time = now()
        var details = ["factors": factors.map(\.rawValue).joined(separator: ",")]
        if let question { details["question"] = question }
        audit(.mfaPrompted, user: user.id, deviceID: deviceID, details: details, for: caller)
        try await store.createToken(TokenRecord(digest: SecureRandom.digest(token), purpose: .mfaChallenge, userID: user.id,
                                                deviceID: deviceID, createdAt: time,
                                                expiresAt: time.addingTimeInterval(Self.challengeLifetime), data: question))
        let passkeyOptions = factors.contains(.passkey)
            ? try await passkeyPromptOptions(for: user, challengeToken: token, deviceID: deviceID, caller: caller) : nil
        return MFAPrompt(challengeToken: token, factors: factors, question: question, passkeyOptions: passkeyOptions)
    }
}
