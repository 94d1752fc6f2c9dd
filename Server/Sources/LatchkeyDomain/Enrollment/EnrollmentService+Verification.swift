import Foundation

/// What opening an email verification link did.
public enum EmailVerificationOutcome: Sendable, Equatable {
    /// A registration's (or resend's) link: the address is verified.
    case verified(email: String)
    /// An email change's link: the new address is verified and is the login now.
    case changed(email: String)
    /// An email change's (or a phone sign-up's claim's) link whose address another wallet holds:
    /// nothing changed.
    case taken(email: String)
    /// Unknown, used or expired.
    case invalid
}

extension EnrollmentService {
    /// Opens the link of a verification email (registration, resend, or email change). A
    /// registration's link verifies the app instance too once `appInstanceVerificationSeconds`
    /// have passed since registering (the nonce login is then no longer possible).
    public func verifyEmail(token: String, caller: Caller) async throws -> EmailVerificationOutcome {
        let store = self.store.recording(into: caller.audit)
        let digest = SecureRandom.digest(token)
        let time = now()
        if let record = try await store.consumeToken(digest: digest, purpose: .emailVerification, now: time),
           let user = try await store.user(id: record.userID) {
            // An unverified registration whose time ran out is no longer anything to verify.
            if user.isExpiredRegistration(at: time) { return .invalid }
            if user.emailNormalized.hasPrefix("phone:"), !user.email.isEmpty {
                // A phone sign-up's email claim becomes the wallet's address only now, if it is still free.
                do {
                    audit(.emailChanged, user: user.id, reason: .signupClaimVerified, details: ["to": user.email], for: caller)
                    // A phone sign-up's claim never displaces a registration of the address (security.md row 11).
                    try await store.changeEmail(userID: user.id, email: user.email, replacingPending: false, now: time)
                } catch StoreError.emailInUse {
                    return .taken(email: user.email)
                }
            } else {
                try await store.markEmailVerified(userID: user.id)
            }
            if time >= user.createdAt.addingTimeInterval(TimeInterval(issuer.appInstanceVerificationSeconds)) {
                try await store.markAppInstanceVerified(userID: user.id)
            }
            return .verified(email: user.email)
        }
        if let record = try await store.consumeToken(digest: digest, purpose: .emailChange, now: time), let email = record.data {
            do {
                audit(.emailChanged, user: record.userID, details: ["to": email], for: caller)
                try await store.changeEmail(userID: record.userID, email: email, replacingPending: true, now: time)
            } catch StoreError.emailInUse {
                return .taken(email: email)
            }
            return .changed(email: email)
        }
        return .invalid
    }
}
