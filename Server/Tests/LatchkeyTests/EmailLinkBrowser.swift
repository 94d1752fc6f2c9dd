#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation

/// Follows an emailed verification or revert link as its owner does in a browser without
/// JavaScript: opening the link shows a confirmation page (opening changes nothing, for mail
/// scanners), and its button posts the form, with the CSRF cookie the page set.
enum EmailLinkBrowser {
    /// The final page's status and HTML: the result page, or the opened page when it had no form.
    static func follow(_ url: URL) async throws -> (status: Int, html: String) {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var open = URLRequest(url: url)
        open.httpShouldHandleCookies = false
        let (data, response) = try await session.data(for: open)
        let http = response as? HTTPURLResponse
        let html = String(decoding: data, as: UTF8.self)
        guard let action = between(html, "action=\"", "\""), let token = between(html, "name=\"token\" value=\"", "\""),
              let csrf = between(html, "name=\"csrf\" value=\"", "\""),
              let setCookie = http?.value(forHTTPHeaderField: "Set-Cookie"), setCookie.hasPrefix("latchkey_csrf=")
        else { return (http?.statusCode ?? 0, html) }
        var post = URLRequest(url: URL(string: action, relativeTo: url)!.absoluteURL)
        post.httpMethod = "POST"
        post.httpShouldHandleCookies = false
        post.setValue(String(setCookie.prefix { $0 != ";" }), forHTTPHeaderField: "Cookie")
        post.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        post.httpBody = Data(["token": token, "csrf": csrf]
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&").utf8)
        let (result, answer) = try await session.data(for: post)
        return ((answer as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: result, as: UTF8.self))
    }

    private static func between(_ html: String, _ start: String, _ end: String) -> String? {
        guard let open = html.range(of: start), let close = html[open.upperBound...].range(of: end) else { return nil }
        return String(html[open.upperBound..<close.lowerBound])
    }
}
