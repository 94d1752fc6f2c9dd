import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import NIOCore
import Testing

/// A page of the portal as a browser without JavaScript sees it.
struct PortalPage {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let html: String

    /// The value of the hidden field `name`.
    func hidden(_ name: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// The text of the element with `id`.
    func text(id: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\""), let open = html[start.upperBound...].firstIndex(of: ">") else { return nil }
        let rest = html[html.index(after: open)...]
        return rest.firstIndex(of: "<").map { String(rest[..<$0]) }
    }

    /// The CSRF cookie the page sets, if any.
    var csrfCookie: String? {
        headers[values: .setCookie].lazy.compactMap { field -> String? in
            guard field.hasPrefix("latchkey_csrf=") else { return nil }
            return String(field.dropFirst("latchkey_csrf=".count).prefix { $0 != ";" })
        }.first
    }
}

/// A browser session with the portal: keeps the CSRF cookie between pages.
final class PortalBrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    var cookie: String?
    /// The browser's `Accept-Language`, if it sends one.
    var acceptLanguage: String?

    init(_ client: any TestClientProtocol) { self.client = client }

    func get(_ path: String) async throws -> PortalPage {
        let page = try await send(.get, path, body: nil)
        if let set = page.csrfCookie { cookie = set }
        return page
    }

    func post(_ path: String, _ fields: [String: String]) async throws -> PortalPage {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        return try await send(.post, path, body: body)
    }

    private func send(_ method: HTTPRequest.Method, _ path: String, body: String?) async throws -> PortalPage {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = "latchkey_csrf=\(cookie)" }
        if let acceptLanguage { headers[.acceptLanguage] = acceptLanguage }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        return try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) {
            PortalPage(status: $0.status, headers: $0.headers, html: String(buffer: $0.body))
        }
    }
}

enum ResetFixture {
    /// Requests a reset of `kind` for `email` and answers the portal path of the emailed link.
    static func requestLink(_ app: LatchkeyApplication, _ client: any TestClientProtocol, kind: String = "password",
                            email: String = "ada@example.com") async throws -> String {
        let earlier = Set(try await app.store.outboxMessages().map(\.id))
        let answer = try await client.call(.post, "/v1/enrollment/\(kind)-reset", body: ["email": email])
        #expect(answer.status == .ok, "\(answer.json)")
        let row = try #require(try await app.store.outboxMessages().first {
            !earlier.contains($0.id) && $0.template == "\(kind)_reset" && $0.recipient == email
        })
        let link = try #require(app.cipher.open(row)?.data["link"])
        return String(link[link.range(of: "/reset?")!.lowerBound...])
    }

    /// The right answer to the question a page asks (the answers of `registrationBody`).
    static func rightAnswer(_ page: PortalPage) -> String {
        let answers = ["What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                       "What is your mother's maiden name?": "Byron"]
        return answers.first { page.html.contains($0.key.replacingOccurrences(of: "'", with: "&#39;")) }?.value ?? "?"
    }

    /// Opens the link, answers rightly and answers the new-credential form.
    static func grantForm(_ browser: PortalBrowser, _ path: String) async throws -> PortalPage {
        let page = try await browser.get(path)
        #expect(page.status == .ok)
        let form = try await browser.post("/reset/answer", ["token": page.hidden("token") ?? "", "csrf": page.hidden("csrf") ?? "",
                                                            "answer": rightAnswer(page)])
        #expect(form.status == .ok, "\(form.html)")
        return form
    }
}
