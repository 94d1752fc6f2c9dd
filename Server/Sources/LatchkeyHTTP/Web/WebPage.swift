import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyDomain
import NIOCore

/// A rendered page with the portal's security headers: a strict CSP (no scripts, styles and form
/// targets from this origin only, no framing), no caching, no referrer, no MIME sniffing. Its texts
/// are in `language` (`<html lang>` and `Content-Language` say which).
package struct WebPage {
    package var status: HTTPResponse.Status = .ok
    package var template: String
    package var values: [String: Any]
    package var language = TextCatalog.base

    package static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        .cacheControl: "no-store",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    /// A page that only explains, its title and text the catalog's (`key.title` unless `title` names
    /// another key, and `key.text`) in the language of `texts`, filled from `values`.
    package static func message(_ status: HTTPResponse.Status = .ok, _ key: String, title: String? = nil, values: [String: String] = [:],
                                texts: LocalizedTexts, issuerName: String) -> WebPage {
        WebPage(status: status, template: "message",
                values: ["title": texts.portal(title ?? key + ".title", values), "text": texts.portal(key + ".text", values),
                         "issuer": issuerName],
                language: texts.language)
    }

    /// The response, with the security headers and any cookie given.
    package func response(cookie: Cookie? = nil) -> Response {
        var values = values
        values["lang"] = language
        let html = PortalTemplates.library.render(values, withTemplate: template) ?? ""
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLanguage] = language
        if let cookie { headers.append(HTTPField(name: .setCookie, value: cookie.description)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page, saying in `Retry-After` when to come back.
    package func response(retryAfter until: Date, now: Date = Date()) -> Response {
        var response = response()
        response.headers[.retryAfter] = String(until.retryAfter(from: now))
        return response
    }
}
