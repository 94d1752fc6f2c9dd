import Foundation
import LatchkeyCore

extension FederationService {
    /// Stores the SSO user in one transaction with the nonce's use, the provider link and, for an
    /// address the provider did not assert verified (when the issuer verifies emails), the
    /// verification link; such a registration is pending, and any pending registration of the
    /// address is replaced.
    package func create(_ profile: UserProfile, email: String, nonce: String, provided: FederationNonceRecord,
                deviceID: String?, hasher: SecretHasher, caller: Caller) async throws -> CustomerRegistrationResult {
        let store = self.store.recording(into: caller.audit)
        async let passcode = hasher.hash(profile.passcode ?? "")
        let answers = try await hasher.hashAnswers(profile.mfaAnswers ?? [:], mfa: issuer.mfa)
        let time = now()
        let userID = SecureRandom.identifier()
        let loginNonce = SecureRandom.token()
        let normalized = EmailAddress.normalized(email)
        let providerVerified = provided.emailVerified && provided.email.map(EmailAddress.normalized) == normalized
        let pendingUntil = providerVerified ? nil : issuer.pendingRegistrationUntil(from: time)
        let document = EnrollmentService.StoredProfile(addressInformation: profile.addressInformation,
                                                       additionalCustomerInformation: profile.additionalCustomerInformation)
        let user = UserRecord(
            id: userID, issuer: issuer.id, email: email, emailNormalized: normalized,
            firstName: profile.firstName, lastName: profile.lastName, phone: profile.phone, externalId: profile.externalId,
            passwordHash: nil, passcodeHash: try await passcode, emailVerified: pendingUntil == nil,
            profileJSON: try document.encoded(sealing: issuer.enrollmentRules.metadata, with: fields), createdAt: time, updatedAt: time,
            pendingUntil: pendingUntil, languages: caller.client.languages.headerValue)
        var tokens = [TokenRecord(digest: SecureRandom.digest(loginNonce), purpose: .registrationNonce, userID: userID,
                                  deviceID: deviceID, createdAt: time,
                                  expiresAt: time.addingTimeInterval(TimeInterval(issuer.appInstanceVerificationSeconds)))]
        var messages: [OutboxMessage] = []
        if pendingUntil != nil {
            let link = try outbox.emailVerification(userID: userID, to: email, firstName: profile.firstName,
                                                    languages: caller.client.languages, at: time)
            tokens.append(link.token)
            messages.append(link.message)
        }
        audit(.userRegistered, user: user.id, deviceID: deviceID, details: ["method": "sso"], for: caller)
        for attempt in 1...2 {
            do {
                _ = try await store.createFederatedUser(nonceDigest: SecureRandom.digest(nonce), user: user, answers: answers,
                                                        tokens: tokens, messages: messages, replacingPending: true, now: time)
                break
            } catch StoreError.nonceNotUsable {
                throw DomainError.invalidFederationNonce
            } catch StoreError.emailInUse where attempt == 1 {
                // A pending registration of the address inserted in a race is replaced by the retry.
                continue
            } catch StoreError.emailInUse {
                throw DomainError.emailInUse(field: "email")
            } catch StoreError.subjectLinked {
                throw DomainError(.emailInUse, message: "A wallet is already registered for this identity.", field: "nonce")
            }
        }
        return CustomerRegistrationResult(customerUri: EnrollmentService.customerURI(userID), nonce: loginNonce,
                                          additionalCustomerInformation: profile.additionalCustomerInformation ?? [:])
    }

    /// `loginByFederatedIdentity`: a fresh code logs in the wallet linked to its subject, under the
    /// rules of every login: 421 wallet deactivated, 423/503 device, 418 email, 511 app instance,
    /// and the MFA prompt (412) on a device not linked yet. 401 when no wallet is linked.
    public func login(code: String, provider: String, codeVerifier: String? = nil, caller: Caller) async throws -> LoginOutcome {
        let store = self.store.recording(into: caller.audit)
        let device = caller.device
        guard device.deviceID != nil else { throw DomainError.deviceIDRequired }
        let identity = try await identity(code: code, provider: provider, codeVerifier: codeVerifier)
        guard let user = try await store.federatedUser(providerID: provider, subject: identity.subject) else {
            audit(.loginFailed, user: nil, outcome: .failure, reason: .noLinkedWallet, deviceID: device.deviceID,
                  details: ["method": "sso", "provider": provider], for: caller)
            throw DomainError.noLinkedWallet
        }
        if user.status != .active {
            audit(.loginFailed, user: user.id, outcome: .failure, reason: .walletDeactivated, deviceID: device.deviceID,
                  details: ["method": "sso", "provider": provider], for: caller)
            throw DomainError.walletDeactivated
        }
        _ = try await verifier.linkedDevice(user: user, deviceID: device.deviceID)
        try verifier.requireVerified(user)
        return try await logins.finish(user, device: device, method: .sso, caller: caller)
    }
}
