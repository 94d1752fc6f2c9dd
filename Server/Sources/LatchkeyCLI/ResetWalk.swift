#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain

/// The forgotten-password part of the demo: request the email, then go through the secure portal
/// like a browser without JavaScript (in-process: it follows the emailed link itself), and log in
/// with the new password.
struct ResetWalk {
    let client: LatchkeyClient
    let email: String
    let outbox: String?
    static let newPassword = "reset-secret-99"

    func run() async throws {
        let enrollment = client.enrollment
        let reset = try await step("resetForgottenPassword") { try await enrollment.resetForgottenPassword(email) }
        print("  \(reset.message) (mfaQuestions: \(reset.mfaQuestions.map { "\($0)" } ?? "null"))")
        if let outbox {
            let link = try await courierLink(outbox, to: email, template: "password_reset")
            try await walkPortal(link)
        } else {
            print("→ open the reset link sent to \(email), answer the question, set the password to "
                  + "\(Self.newPassword), then press Enter")
            _ = readLine()
        }
        _ = try await step("loginByUsernamePassword with the new password") {
            try await client.authentication.loginByUsernamePassword(username: email, password: Self.newPassword)
        }
        try await step("logout") { try await client.authentication.logout() }
    }

    private func walkPortal(_ link: URL) async throws {
        let portal = PortalSession()
        var page = try await step("open the reset link") { try await portal.get(link) }
        print("  question: \(page.between("<label for=\"answer\">", "</label>") ?? "none")")
        page = try await step("answer wrongly") {
            try await portal.post(link, "/reset/answer", ["token": page.hidden("token"), "csrf": page.hidden("csrf"), "answer": "wrong"])
        }
        print("  \(page.status): \(page.between("role=\"alert\">", "<") ?? "")")
        page = try await step("answer rightly") {
            try await portal.post(link, "/reset/answer", ["token": page.hidden("token"), "csrf": page.hidden("csrf"),
                                                          "answer": "new answer"])
        }
        let form = ["grant": page.hidden("grant"), "csrf": page.hidden("csrf")]
        page = try await step("set a password against the rules") {
            try await portal.post(link, "/reset/credential", form.merging(["new": "short", "confirm": "short"]) { $1 })
        }
        print("  \(page.status): \(page.between("role=\"alert\">", "<") ?? "")")
        page = try await step("set the new password") {
            try await portal.post(link, "/reset/credential", form.merging(["new": Self.newPassword, "confirm": Self.newPassword]) { $1 })
        }
        print("  \(page.status): \(page.between("<h1 id=\"title\">", "<") ?? "")")
        guard page.status == 200 else { throw DemoError("The portal did not accept the new password.") }
    }
}

/// A browser without JavaScript for the portal and the pages of emailed links: keeps its cookie, posts forms.
final class PortalSession: @unchecked Sendable {
    struct Page {
        let status: Int
        let html: String
        func hidden(_ name: String) -> String { between("name=\"\(name)\" value=\"", "\"") ?? "" }
        func between(_ start: String, _ end: String) -> String? {
            guard let open = html.range(of: start), let close = html[open.upperBound...].range(of: end) else { return nil }
            return String(html[open.upperBound..<close.lowerBound])
        }
    }

    private var cookie: String?
    private let session = URLSession(configuration: .ephemeral)

    func get(_ url: URL) async throws -> Page {
        try await send(URLRequest(url: url))
    }

    func post(_ link: URL, _ path: String, _ fields: [String: String]) async throws -> Page {
        var request = URLRequest(url: URL(string: path, relativeTo: link)!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(fields.map { "\($0.key)=\(PercentEncoding.unreserved($0.value))" }
            .joined(separator: "&").utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Page {
        var request = request
        request.httpShouldHandleCookies = false
        if let cookie { request.setValue("latchkey_csrf=\(cookie)", forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        if let set = http?.value(forHTTPHeaderField: "Set-Cookie"), set.hasPrefix("latchkey_csrf=") {
            cookie = String(set.dropFirst("latchkey_csrf=".count).prefix { $0 != ";" })
        }
        return Page(status: http?.statusCode ?? 0, html: String(decoding: data, as: UTF8.self))
    }
}
