import Foundation

/// What a verification link would do when confirmed, looked up without using it.
public enum EmailVerificationLink: Sendable, Equatable {
    /// A registration's (or resend's, or a phone sign-up's claim's) link: it verifies this address.
    case verifies(email: String)
    /// An email change's link: it verifies this new address, which becomes the login.
    case changes(email: String)
    /// Unknown, used or expired.
    case invalid
}

extension EnrollmentService {
    /// Looks a verification link up for the page its `GET` shows, and changes nothing: mail
    /// scanners and link previewers open links, so only the page's form post (`verifyEmail`) acts.
    public func verificationLink(token: String) async throws -> EmailVerificationLink {
        let digest = SecureRandom.digest(token)
        let time = now()
        if let record = try await store.token(digest: digest, purpose: .emailVerification, now: time),
           let user = try await store.user(id: record.userID), !user.isExpiredRegistration(at: time) {
            return .verifies(email: user.email)
        }
        if let record = try await store.token(digest: digest, purpose: .emailChange, now: time), let email = record.data {
            return .changes(email: email)
        }
        return .invalid
    }
}
