import HTTPTypes
import HummingbirdAuth
import LatchkeyDomain

/// The session token of a request and how it was sent.
package struct SessionCredential {
    package enum Scheme { case bearer, dpop, sessionHeader }
    package let scheme: Scheme
    package let token: String

    /// `Authorization: Bearer …` (read by hummingbird-auth) or `Authorization: DPoP …`; on Kratos's
    /// routes `X-Session-Token` first, as Kratos reads it. Nil when none is sent. `read` is the
    /// request's `headers` as the edge read them.
    package init?(_ read: EdgeHeaders, headers: HTTPFields, dialect: ErrorDialect) {
        if dialect == .kratos, let token = read.sessionToken, !token.isEmpty {
            (scheme, self.token) = (.sessionHeader, token)
        } else if let (scheme, token) = Self.ascii(read.authorization) {
            (self.scheme, self.token) = (scheme, token)
        } else if let bearer = headers.bearer, !bearer.token.isEmpty {
            (scheme, token) = (.bearer, bearer.token)
        } else if let value = read.authorization, value.hasPrefix(Self.dpopScheme), value.utf8.count > Self.dpopScheme.utf8.count {
            (scheme, token) = (.dpop, String(value.dropFirst(Self.dpopScheme.count)))
        } else {
            return nil
        }
    }

    /// RFC 9449's scheme, written as hummingbird-auth reads `Bearer `.
    private static let dpopScheme = "DPoP "

    /// An all-ASCII `Authorization` value (every token Latchkey issues) read byte by byte, as the
    /// character-wise reading below would read it: `Bearer ` or `DPoP ` and a token. Nil for
    /// anything else, which takes the reading below (a value with other characters, where
    /// characters and bytes differ).
    private static func ascii(_ value: String?) -> (Scheme, String)? {
        guard let utf8 = value?.utf8, utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        for (prefix, scheme) in [("Bearer ", Scheme.bearer), (dpopScheme, .dpop)] where utf8.starts(with: prefix.utf8) {
            let token = utf8.dropFirst(prefix.utf8.count)
            return token.isEmpty ? nil : (scheme, String(Substring(token)))
        }
        return nil
    }
}
