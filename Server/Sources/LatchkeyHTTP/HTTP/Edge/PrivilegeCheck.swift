import Foundation
import LatchkeyDomain

/// A privileged operation's demand (`privileged` in the policy): a session whose login checked a
/// knowledge factor within the issuer's `sessions.privilegedSeconds`.
package struct PrivilegeCheck: Sendable {
    package let seconds: Int
    package let now: @Sendable () -> Date

    package init(seconds: Int, now: @escaping @Sendable () -> Date) {
        self.seconds = seconds
        self.now = now
    }

    /// Passes an anonymous caller (whose operation refuses it itself) and a recent enough session.
    /// - Throws: 403 `session_refresh_required` for a session whose knowledge-factor login is older.
    package func check(_ identity: Identity) throws {
        guard case .authenticated(let principal) = identity else { return }
        try principal.requirePrivileged(within: seconds, now: now())
    }
}
