import Foundation
import LatchkeyCore

/// The authentication module: logins, MFA prompts, sessions, device tokens and lockout.
/// Knows no HTTP; every refusal is a `DomainError` with the spec's code.
///
/// A class, though it holds only constants: its callers keep it as a stored property, and a
/// struct of this many collaborators was copied (every reference in it retained and released)
/// for each call made through that property, on the session check's path too.
public final class AuthenticationService: Sendable {
    /// What logins read and write: users, lockout counters, devices, sessions, device tokens.
    public typealias Store = UserStore & AttemptStore & DeviceStore & SessionStore & CredentialStore & PasskeyStore & OneTimeFactorStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// Builds the security notices of device tokens and unlinked devices.
    package let outbox: OutboxWriter
    /// Checks credentials under the rate limits and the lockout rules.
    package let verifier: CredentialVerifier
    /// Opens sessions.
    package let sessions: SessionIssuer
    /// Links or prompts the device and opens the session of every login.
    package let logins: LoginFlow
    package let audit: AuditRecorder
    package let admitted: HashAdmission
    package let now: @Sendable () -> Date

    package init(store: any Store, issuer: IssuerSettings, outbox: OutboxWriter, verifier: CredentialVerifier, sessions: SessionIssuer,
                 logins: LoginFlow, audit: AuditRecorder, admitted: HashAdmission, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.issuer = issuer
        self.outbox = outbox
        self.verifier = verifier
        self.sessions = sessions
        self.logins = logins
        self.audit = audit
        self.admitted = admitted
        self.now = now
    }
}
