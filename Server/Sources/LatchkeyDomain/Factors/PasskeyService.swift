import Foundation
import LatchkeyCore

/// A wallet's passkeys (WebAuthn Level 3): their registration from a privileged session, the
/// list, names and removal, and the discoverable login that needs no username and links a new
/// phone. The checks of what an authenticator sent are `WebAuthnVerifier`'s; this keeps the
/// challenges, the credentials and the rules around them. Knows no HTTP.
public struct PasskeyService: Sendable {
    /// What the ceremonies read and write: wallets, passkeys and their challenges, the factor inventory.
    public typealias Store = UserStore & PasskeyStore & FactorInventoryStore
    package let store: any Store
    package let issuer: IssuerSettings
    package let ceremonies: PasskeyCeremonies
    /// How a passkey login ends: the device linked or prompted, the session.
    package let logins: LoginFlow
    /// The lockout rules a passkey login's assertion is checked under.
    package let verifier: CredentialVerifier
    /// Builds the security notice of a passkey added or removed.
    package let outbox: OutboxWriter
    package let audit: AuditRecorder
    package let now: @Sendable () -> Date

    public init(store: any Store, issuer: IssuerSettings, ceremonies: PasskeyCeremonies, logins: LoginFlow, verifier: CredentialVerifier,
                outbox: OutboxWriter, audit: AuditRecorder, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.issuer = issuer
        self.ceremonies = ceremonies
        self.logins = logins
        self.verifier = verifier
        self.outbox = outbox
        self.audit = audit
        self.now = now
    }

    /// The issuer's factor rules.
    var rules: FactorRules { FactorRules(issuer.factors) }

    /// The creation options of a new passkey for the session's wallet: the relying party, the
    /// wallet's user handle (`PasskeyCeremonies.userHandle(for:)`) with its email as the name an
    /// authenticator shows, ES256 and EdDSA keys, the wallet's passkeys excluded (an authenticator
    /// that has one says so instead of making another), a discoverable credential and user
    /// verification required, no attestation asked for; a single-use challenge bound to the wallet
    /// and the session's device.
    /// - Throws: `factor_not_offered` (404) when the issuer does not enrol passkeys,
    ///   `session_refresh_required` (403) outside the privileged window.
    public func registrationOptions(for principal: Principal) async throws -> PasskeyCreationOptions {
        try rules.requireEnrollable(.passkey)
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: now())
        let user = try await principal.user()
        let existing = try await store.passkeys(userID: user.id)
        let challenge = try await ceremonies.issueChallenge(.registration, userID: user.id, deviceID: principal.deviceID)
        let party = ceremonies.relyingParty
        return PasskeyCreationOptions(
            challenge: challenge, rpID: party.id, rpName: party.name, userHandle: ceremonies.userHandle(for: user.id),
            userName: user.email, algorithms: [COSEKey.edDSA, COSEKey.es256],
            exclude: existing.map { PasskeyDescriptor(credentialID: $0.credentialID, transports: $0.transports) },
            timeoutMilliseconds: ceremonies.timeoutMilliseconds)
    }

    /// Registers the passkey an authenticator made for the options of `registrationOptions`: the
    /// challenge must be a live registration challenge of this wallet and device (taken once,
    /// whether or not the rest verifies), then WebAuthn's registration checks
    /// (`WebAuthnVerifier.verifyRegistration`). The passkey is stored with the owner's security
    /// notice in one transaction and `factor.enrolled` recorded. `name` defaults to "Passkey" and
    /// the day it was made.
    /// - Throws: `factor_not_offered` (404), `session_refresh_required` (403), `account_locked`
    ///   (424) for a wallet an operator locked, `invalid_field` (400, `name`) for a name
    ///   `checkedName` refuses, `passkey_rejected` (400, field `credential`) for a response that
    ///   does not verify, `factor_already_enrolled` (409) for a credential id registered already.
    public func register(_ registration: WebAuthnRegistration, name: String?, principal: Principal,
                         caller: Caller) async throws -> PasskeyRecord {
        try rules.requireEnrollable(.passkey)
        let time = now()
        try principal.requirePrivileged(within: issuer.sessions.privilegedSeconds, now: time)
        let store = self.store.recording(into: caller.audit)
        let user = try await principal.user()
        if user.locked { throw DomainError.accountLocked }
        let name = try name.map(Self.checkedName)
        let rejected = { (detail: String) -> DomainError in
            audit(.credentialCheckFailed, user: user.id, outcome: .failure, reason: .passkeyRejected, deviceID: principal.deviceID,
                  details: ["factor": CredentialFactor.passkey.rawValue, "check": detail], for: caller)
            return DomainError(.passkeyRejected, field: "credential")
        }
        guard let taken = try await ceremonies.takeChallenge(answeredBy: registration.clientDataJSON, purpose: .registration),
              taken.record.userID == user.id, taken.record.deviceID == principal.deviceID
        else { throw rejected("the challenge is not a live registration challenge of this wallet and device") }
        let verified: VerifiedCredential
        do {
            verified = try WebAuthnVerifier.verifyRegistration(registration, challenge: taken.challenge,
                                                              relyingParty: ceremonies.relyingParty)
        } catch {
            throw rejected(error.description)
        }
        let passkey = PasskeyRecord(
            id: "pk_" + SecureRandom.orderedIdentifier(at: time), userID: user.id, credentialID: verified.credentialID, publicKey: verified.publicKey,
            algorithm: verified.algorithm, signCount: verified.signCount, backupEligible: verified.backupEligible,
            backedUp: verified.backedUp, aaguid: verified.aaguid, transports: verified.transports,
            attestationFormat: verified.attestationFormat, name: name ?? Self.defaultName(at: time), createdAt: time)
        audit(.factorEnrolled, user: user.id, deviceID: principal.deviceID,
              details: ["kind": FactorKind.passkey.rawValue, "id": passkey.id], for: caller)
        do {
            try await store.addPasskey(passkey, messages: try outbox.securityNotice(.passkeys, to: user, answering: caller, at: time))
        } catch PasskeyStoreError.credentialInUse {
            throw DomainError(.factorAlreadyEnrolled, field: "credential")
        }
        return passkey
    }

    /// The longest name a passkey may have, in characters.
    static let nameLimit = 64

    /// A passkey's name as given at registration or in a rename, trimmed: 1 to `nameLimit`
    /// characters, none of them a control character (the name is shown in lists and notices).
    /// - Throws: `invalid_field` (400, `name`).
    static func checkedName(_ name: String) throws(DomainError) -> String {
        let field = "name"
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { throw DomainError.invalidField(field, "\(field) must not be empty.") }
        if trimmed.count > nameLimit { throw DomainError.invalidField(field, "\(field) must be at most \(nameLimit) characters.") }
        if trimmed.unicodeScalars.contains(where: CharacterSet.controlCharacters.contains) {
            throw DomainError.invalidField(field, "\(field) must not contain control characters.")
        }
        return trimmed
    }

    /// "Passkey" and the day, the name of a passkey registered without one.
    static func defaultName(at date: Date) -> String {
        "Passkey " + date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day())
    }
}

/// WebAuthn's creation options (`PublicKeyCredentialCreationOptionsJSON`) in domain terms:
/// discoverable credential, user verification required, no attestation asked for.
public struct PasskeyCreationOptions: Sendable, Equatable {
    public var challenge: Data
    public var rpID: String
    public var rpName: String
    /// The wallet's user handle (no personal data).
    public var userHandle: Data
    /// What an authenticator shows as the account: the wallet's email.
    public var userName: String
    /// The COSE algorithms accepted, preferred first.
    public var algorithms: [Int]
    /// The wallet's passkeys, which an authenticator must not register again.
    public var exclude: [PasskeyDescriptor]
    public var timeoutMilliseconds: Int
}
