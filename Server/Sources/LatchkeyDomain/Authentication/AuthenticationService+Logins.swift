import Foundation
import LatchkeyCore

extension AuthenticationService {
    /// `loginByUsernamePassword`: the username is the email, compared case-insensitively. An
    /// unknown user costs the same hash work as a wrong password.
    public func loginWithPassword(username: String, password: String, caller: Caller) async throws -> LoginOutcome {
        if username.isEmpty { throw DomainError.invalidField("username", "username is required.") }
        if password.isEmpty { throw DomainError.invalidField("password", "password is required.") }
        guard caller.device.deviceID != nil else { throw DomainError.deviceIDRequired }
        switch try await logins.passwordLogin(.email(username), password: password, caller: caller, unlinked: .prompt) {
        case .session(let opened): return sessions.outcome(opened)
        case .mfaRequired(let prompt): return .mfaRequired(prompt)
        }
    }

    /// `loginByPIN`: the user is the one the device (`X-Device-ID`) is linked to.
    public func loginWithPIN(pin: String, caller: Caller) async throws -> LoginOutcome {
        let store = self.store.recording(into: caller.audit)
        let device = caller.device
        return try await admitted(1, for: caller) { hasher in
            if pin.isEmpty { throw DomainError.invalidField("pin", "pin is required.") }
            guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
            guard let link = try await store.deviceOwner(deviceID: deviceID), let user = try await store.user(id: link.userID) else {
                audit(.loginFailed, user: nil, outcome: .failure, reason: .unknownDevice, deviceID: deviceID, details: ["factor": CredentialFactor.pin.rawValue], for: caller)
                try await hasher.burn(pin)
                throw DomainError.wrongCredentials
            }
            try await verifier.check(pin, against: user.passcodeHash, user: user, deviceID: deviceID, factor: .pin,
                                     credential: .passcode, hasher: hasher, caller: caller)
            try verifier.requireVerified(user)
            return try await logins.finish(user, device: device, method: .pin, caller: caller)
        }
    }

    /// `loginByNonce`: the registration nonce, once, within the issuer's window. It completes the
    /// app-instance verification and links the registering device; from another device it
    /// prompts for an MFA answer.
    public func loginWithNonce(_ nonce: String, caller: Caller) async throws -> LoginOutcome {
        let device = caller.device
        if nonce.isEmpty { throw DomainError.invalidField("nonce", "nonce is required.") }
        guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
        let digest = SecureRandom.digest(nonce)
        guard let pending = try await store.token(digest: digest, purpose: .registrationNonce, now: now()),
              let user = try await store.user(id: pending.userID)
        else { throw DomainError.wrongCredentials }
        if user.status != .active { throw DomainError.walletDeactivated }
        if issuer.emailVerificationRequired && !user.emailVerified { throw DomainError.emailNotVerified }
        _ = try await verifier.linkedDevice(user: user, deviceID: deviceID)
        guard let token = try await store.consumeToken(digest: digest, purpose: .registrationNonce, now: now()) else {
            throw DomainError.wrongCredentials
        }
        try await store.markAppInstanceVerified(userID: user.id)
        return try await logins.finish(user, device: device, linkDevice: token.deviceID == nil || token.deviceID == deviceID,
                                method: .nonce, caller: caller)
    }

    /// `registerWithMFA`: a proof of one of the prompt's factors links the device and logs in: the
    /// prompted question's answer, an authenticator app's code, a recovery code or a passkey
    /// assertion. The challenge is single use (consumed before the proof is checked); a proof of a
    /// factor the prompt did not offer is refused like a wrong one; wrong proofs count toward the
    /// smart lockout of unlinked devices.
    public func answerMFA(challengeToken: String, proof: MFAProof, caller: Caller) async throws -> LoginOutcome {
        let store = self.store.recording(into: caller.audit)
        let device = caller.device
        return try await admitted(1, for: caller) { hasher in
            if challengeToken.isEmpty { throw DomainError.invalidField("challengeToken", "challengeToken is required.") }
            if case .answer(let answer) = proof, answer.isEmpty {
                throw DomainError.invalidField("mfaSecretAnswer", "mfaSecretAnswer is required.")
            }
            guard let deviceID = device.deviceID else { throw DomainError.deviceIDRequired }
            let factor = proof.credentialFactor
            guard let challenge = try await store.consumeToken(digest: SecureRandom.digest(challengeToken), purpose: .mfaChallenge,
                                                               now: now()),
                  challenge.deviceID == deviceID, let user = try await store.user(id: challenge.userID)
            else {
                audit(.loginFailed, user: nil, outcome: .failure, reason: .invalidChallenge, deviceID: deviceID,
                      details: ["factor": factor.rawValue], for: caller)
                throw DomainError.wrongCredentials
            }
            guard try await logins.promptFactors(for: user).contains(proof.kind) else {
                audit(.loginFailed, user: user.id, outcome: .failure, reason: .invalidChallenge, deviceID: deviceID,
                      details: ["factor": factor.rawValue], for: caller)
                throw DomainError.wrongCredentials
            }
            let method: LoginMethod
            switch proof {
            case .answer(let answer):
                let question = challenge.data ?? ""
                let hash = try await store.mfaAnswers(userID: user.id).first { $0.question == question }?.answerHash
                try await verifier.check(issuer.mfa.normalize(answer), against: hash, user: user, deviceID: nil, factor: .mfaAnswer,
                                         credential: .answer(question: question), hasher: hasher, caller: caller)
                audit(.mfaAnswered, user: user.id, deviceID: deviceID, details: ["question": question], for: caller)
                try await store.clearPendingMFAQuestion(userID: user.id)
                method = .mfa
            case .totp(let code):
                try await logins.checkTOTPAtPrompt(code, user: user, deviceID: deviceID, hasher: hasher, caller: caller)
                method = .totp
            case .recoveryCode(let code):
                try await logins.checkRecoveryCodeAtPrompt(code, user: user, deviceID: deviceID, hasher: hasher, caller: caller)
                method = .recoveryCode
            case .passkey(let assertion):
                try await logins.checkPasskeyAtPrompt(assertion, user: user, challengeToken: challengeToken, deviceID: deviceID,
                                                      caller: caller)
                method = .passkey
            }
            // The password and a second factor were proven: earlier failures from unlinked devices were not an attack.
            try await store.clearUnlinkedAttempts(userID: user.id)
            return try await logins.finish(user, device: device, linkDevice: true, method: method, caller: caller)
        }
    }
}
