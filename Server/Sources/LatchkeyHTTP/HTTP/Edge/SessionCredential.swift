import HTTPTypes
import Hummingbird
import HummingbirdAuth
import LatchkeyDomain

/// The session token of a request and how it was sent.
package struct SessionCredential {
    package enum Scheme { case bearer, dpop, sessionHeader }
    package let scheme: Scheme
    package let token: String

    /// `Authorization: Bearer …` (read by hummingbird-auth) or `Authorization: DPoP …`; on Kratos's
    /// routes `X-Session-Token` first, as Kratos reads it. Nil when none is sent.
    package init?(_ request: Request, dialect: ErrorDialect) {
        let headers = request.headers
        if dialect == .kratos, let token = headers[.sessionToken], !token.isEmpty {
            (scheme, self.token) = (.sessionHeader, token)
        } else if let bearer = headers.bearer, !bearer.token.isEmpty {
            (scheme, token) = (.bearer, bearer.token)
        } else if let value = headers[.authorization], value.hasPrefix(Self.dpopScheme), value.utf8.count > Self.dpopScheme.utf8.count {
            (scheme, token) = (.dpop, String(value.dropFirst(Self.dpopScheme.count)))
        } else {
            return nil
        }
    }

    /// RFC 9449's scheme, written as hummingbird-auth reads `Bearer `.
    private static let dpopScheme = "DPoP "
}
