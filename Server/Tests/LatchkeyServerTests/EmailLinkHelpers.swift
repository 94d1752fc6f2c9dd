import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

/// The links of verification and email-change emails, followed as a person with a browser does:
/// opening one shows a confirmation page (opening changes nothing, for mail scanners), and pressing
/// its button posts the form that acts.
enum EmailLink {
    /// The server path (`/verify-email?token=…`, `/revert-email?token=…`) of the newest message of
    /// `template` sent to `recipient`.
    static func path(_ app: LatchkeyApplication, _ template: String, to recipient: String) async throws -> String {
        let row = try #require(try await app.store.outboxMessages().last { $0.recipient == recipient && $0.template == template })
        return try path(of: try #require(app.cipher.open(row)?.data["link"]))
    }

    /// The server path of an emailed link.
    static func path(of link: String) throws -> String {
        String(link[try #require(link.range(of: "/verify-email") ?? link.range(of: "/revert-email")).lowerBound...])
    }

    /// Opens the link's page and, when it offers the confirmation form, presses its button in the
    /// same browser (the CSRF cookie the page set goes along). Answers the last page: the result
    /// page, or the opened page when it had no form (an invalid, used or expired link).
    static func follow(_ client: any TestClientProtocol, _ path: String) async throws -> PortalPage {
        let browser = PortalBrowser(client)
        let page = try await browser.get(path)
        guard let action = page.formAction else { return page }
        return try await browser.post(action, ["token": page.hidden("token") ?? "", "csrf": page.hidden("csrf") ?? ""])
    }
}

extension PortalPage {
    /// Where the page's form posts, if it has one.
    var formAction: String? {
        guard let form = html.range(of: "<form"), let action = html[form.upperBound...].range(of: "action=\"") else { return nil }
        let rest = html[action.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
