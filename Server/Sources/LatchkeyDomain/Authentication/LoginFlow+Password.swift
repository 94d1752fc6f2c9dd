import Foundation
import LatchkeyCore

/// How a password login names the wallet.
public enum LoginIdentifier: Sendable, Equatable {
    /// The registered email, compared case-insensitively (`loginByUsernamePassword`, Kratos).
    case email(String)
    /// The verified E.164 phone number of a phone sign-up (Kratos).
    case phone(String)

    /// A login by phone number does not need the email verified.
    package var isEmail: Bool { if case .email = self { true } else { false } }
}

/// What a login from a device not linked to the wallet does.
public enum UnlinkedDevicePolicy: Sendable, Equatable {
    /// The wallet API: the MFA prompt, which links the device once answered.
    case prompt
    /// The Kratos-compatible API, which has no prompt: the device is linked when the wallet has no
    /// factor that answers the MFA prompt, and the login is refused
    /// (`PasswordLoginRefusal.deviceNotLinked`) when it has one.
    case linkUnlessQuestions
}

/// A login completed: the session token (returned once), its record and the wallet as it was read
/// before the login.
public struct OpenedSession: Sendable, Equatable {
    public var token: String
    public var session: SessionRecord
    public var user: UserRecord
}

/// What a password login ends in; each API renders it in its own shape.
public enum PasswordLoginResult: Sendable, Equatable {
    case session(OpenedSession)
    case mfaRequired(MFAPrompt)
}

/// A password login the Kratos-compatible API refuses with a form message.
public enum PasswordLoginRefusal: Error, Sendable, Equatable {
    /// The device is not linked and the wallet has a prompt factor the API cannot ask for.
    case deviceNotLinked
}

extension LoginFlow {
    /// The password login, one domain operation for both APIs: the wallet by email or phone (an
    /// unknown one costs the same hash work as a wrong password), the password checked by the
    /// `CredentialVerifier` (rate limit, lockout), the 418/511/508 checks (a login by phone does not
    /// need the email verified), then the device: linked and usable, or `unlinked`'s policy.
    /// `beforeSession` runs just before the session is opened (Kratos uses its flow there).
    /// Throws the `DomainError`s of those steps, or `PasswordLoginRefusal`.
    public func passwordLogin(_ identifier: LoginIdentifier, password: String, caller: Caller,
                              unlinked: UnlinkedDevicePolicy,
                              beforeSession: () async throws -> Void = {}) async throws -> PasswordLoginResult {
        let store = self.store.recording(into: caller.audit)
        let device = caller.device
        return try await admitted(1, for: caller) { hasher in
            let (found, key): (UserRecord?, String) = switch identifier {
            case .email(let email):
                (try await store.user(issuer: issuer.id, emailNormalized: EmailAddress.normalized(email)), EmailAddress.normalized(email))
            case .phone(let phone): (try await store.user(issuer: issuer.id, phoneNormalized: phone), phone)
            }
            guard let user = found else {
                // What was typed may be a password typed into the wrong field: kept as typed only
                // when it is an address or a number, a keyed digest otherwise (trail and counter alike).
                let typed = audit.identifier(key)
                audit(.loginFailed, user: nil, outcome: .failure, reason: .unknownUser, deviceID: device.deviceID,
                      details: ["identifier": typed], for: caller)
                // The per-account limit a known wallet would meet in `check`, so a 429 tells nothing either.
                if let wait = try await verifier.throttle.refusal("account:unknown:" + typed,
                                                                  limit: verifier.throttle.settings.credentialAttemptsPerMinutePerAccount) {
                    throw DomainError(.rateLimited, retryAfter: wait)
                }
                try await hasher.burn(password)
                throw DomainError.wrongCredentials
            }
            try await verifier.check(password, against: user.passwordHash, user: user, deviceID: device.deviceID, credential: .password,
                                     hasher: hasher, caller: caller)
            try verifier.requireVerified(user, byEmail: identifier.isEmail)
            let linked = try await verifier.linkedDevice(user: user, deviceID: device.deviceID)
            if linked == nil {
                switch unlinked {
                case .prompt:
                    guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
                    // A wallet with no second factor at all and no device (an imported user) has
                    // nothing to prompt with: its first device is linked by the password, as a
                    // registration links the registering device by its nonce. Later devices need a
                    // factor; a wallet with devices but no prompt factor is refused (`prompt`).
                    if try await store.factorInventory(userID: user.id).factors.isEmpty,
                       try await store.devices(userID: user.id).isEmpty { break }
                    return .mfaRequired(try await prompt(user, deviceID: deviceID, caller: caller))
                case .linkUnlessQuestions:
                    // The Kratos API cannot prompt, so it links only a wallet with no second factor
                    // at all (a phone sign-up's). A wallet with any factor is refused even when none
                    // of them answers the issuer's prompt: the wallet API refuses that device too,
                    // and linking it by the password alone would skip the factor the wallet has.
                    if !(try await store.factorInventory(userID: user.id)).factors.isEmpty {
                        throw PasswordLoginRefusal.deviceNotLinked
                    }
                }
            }
            try await beforeSession()
            if linked == nil, let deviceID = device.deviceID {
                try await link(user, deviceID: deviceID, device: device, caller: caller)
            }
            let opened = try await sessions.open(user, device: device, method: identifier.isEmail ? .password : .passwordPhone, caller: caller)
            return .session(OpenedSession(token: opened.token, session: opened.session, user: user))
        }
    }
}
