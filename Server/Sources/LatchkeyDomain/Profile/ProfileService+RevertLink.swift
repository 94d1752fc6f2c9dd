import Foundation

extension ProfileService {
    /// The address an email change's revert link would put back, looked up for the page its `GET`
    /// shows without using the link (`nil`: unknown, used or expired). Mail scanners open links, so
    /// only the page's form post (`revertEmailChange`) acts.
    public func revertLinkAddress(token: String) async throws -> String? {
        try await store.token(digest: SecureRandom.digest(token), purpose: .emailRevert, now: now())?.data
    }
}
