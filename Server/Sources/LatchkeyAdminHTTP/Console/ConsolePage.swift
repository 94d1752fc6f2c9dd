import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import LatchkeyHTTP
import NIOCore

/// A rendered console page with the portal's security headers (strict CSP: no script, no inline
/// style, forms to this origin only, no framing; no caching, no referrer).
struct ConsolePage {
    var status: HTTPResponse.Status = .ok
    var template: String
    var values: [String: Any]

    func response(cookies: [Cookie] = []) -> Response {
        let html = ConsoleTemplates.library.render(values, withTemplate: template) ?? ""
        var headers = WebPage.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie.description)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A 303 to `location` (after a form), with any cookies.
    static func redirect(_ location: String, cookies: [Cookie] = []) -> Response {
        var headers = WebPage.securityHeaders
        headers[.location] = location
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie.description)) }
        return Response(status: .seeOther, headers: headers)
    }
}

/// The console's cookie and the CSRF field of its signed-in forms: an HMAC of the session's
/// digest, so a form made for one sign-in is worth nothing in another, and a cross-site post
/// (which `SameSite=Strict` already keeps the cookie from) has no field either.
struct ConsoleCookies: Sendable {
    let secure: Bool
    private let key: SymmetricKey

    init(pepper: SymmetricKey, secure: Bool) {
        self.key = PepperPurpose.consoleCSRF.key(from: pepper)
        self.secure = secure
    }

    /// `__Host-` binds the cookie to this origin where TLS allows it (RFC 6265bis).
    var name: String { secure ? "__Host-latchkey_console" : "latchkey_console" }

    /// The session cookie: HttpOnly, SameSite=Strict, Secure where TLS; it lasts the browser
    /// session (the server ends it after the idle and absolute timeouts).
    func session(_ token: String) -> Cookie {
        Cookie(name: name, value: token, path: secure ? "/" : "/console", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func cleared() -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: secure ? "/" : "/console", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func token(of request: Request) -> String? { request.cookies[name]?.value }

    func csrf(forSession digest: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("console|\(digest)".utf8), using: key)
        return Data(mac).base64URL
    }

    func verify(_ field: String?, forSession digest: String) -> Bool {
        guard let field else { return false }
        return ConstantTime.equal(Data(csrf(forSession: digest).utf8), Data(field.utf8))
    }
}
