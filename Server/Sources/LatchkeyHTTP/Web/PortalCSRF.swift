import Crypto
import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDomain

/// CSRF protection of the portal's forms and of the confirmation forms of emailed links
/// (`WebRoutes`): a random cookie (`SameSite=Strict`, `HttpOnly`, path `/` so every page has it) and,
/// in each form, an HMAC of that cookie and the form's link or grant token. A forged cross-site post
/// has neither the cookie nor the matching field.
package struct PortalCSRF: Sendable {
    package static let cookieName = "latchkey_csrf"
    private let key: SymmetricKey
    private let secureCookie: Bool

    package init(pepper: SymmetricKey, secureCookie: Bool) {
        self.key = PepperPurpose.portalCSRF.key(from: pepper)
        self.secureCookie = secureCookie
    }

    /// The browser's CSRF cookie value, or a new one together with the cookie to set.
    package func cookie(of request: Request) -> (value: String, setCookie: Cookie?) {
        if let value = request.cookies[Self.cookieName]?.value, value.count == 43,
           value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return (value, nil)
        }
        let value = SecureRandom.token()
        return (value, Cookie(name: Self.cookieName, value: value, path: "/", secure: secureCookie, httpOnly: true,
                              sameSite: .strict))
    }

    /// The form field for a cookie value and the token the form carries.
    package func field(cookie: String, token: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(cookie)|\(token)".utf8), using: key)
        return Data(mac).base64URL
    }

    /// Whether a posted form's field matches the request's cookie and the form's token.
    package func verify(_ request: Request, field: String?, token: String) -> Bool {
        guard let cookie = request.cookies[Self.cookieName]?.value, let field else { return false }
        return ConstantTime.equal(Data(self.field(cookie: cookie, token: token).utf8), Data(field.utf8))
    }
}
