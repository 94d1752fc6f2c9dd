import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyDomain
import NIOCore

/// The pages of the links in emails: email verification (registration, resend, email change), an
/// email change's revert link, and the confirmation of a held profile change. Mail scanners and link previewers open links, so opening one
/// (`GET`) only looks its token up and shows what it will do, with a form; the form's post (CSRF-
/// protected like the portal's) does it. Plain HTML, no JavaScript.
package struct WebRoutes: Sendable {
    package let enrollment: EnrollmentService
    package let profile: ProfileService
    package let issuer: IssuerSettings
    package let csrf: PortalCSRF
    package let maxBodyBytes: Int

    /// The fields the confirmation forms post.
    package struct Form: Decodable {
        package var token: String?
        package var csrf: String?
    }

    package func add(to router: RouterGroup<AppRequestContext>) {
        router.get("/verify-email") { request, _ in try await openVerification(request) }
        router.post("/verify-email") { request, context in try await verify(request, caller: context.pageCaller) }
        router.get("/revert-email") { request, _ in try await openRevert(request) }
        router.post("/revert-email") { request, context in try await revert(request, caller: context.pageCaller) }
        router.get("/confirm-change") { request, _ in try await openProfileChange(request) }
        router.post("/confirm-change") { request, context in try await confirmProfileChange(request, caller: context.pageCaller) }
    }

    // MARK: Email verification

    private func openVerification(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        switch try await enrollment.verificationLink(token: token) {
        case .verifies(let email):
            return confirmPage(request, title: "Verify your email address", token: token, action: "/verify-email",
                               text: "Confirm that \(email) is your wallet's email address.",
                               button: "Verify \(email)")
        case .changes(let email):
            return confirmPage(request, title: "Verify your new email address", token: token, action: "/verify-email",
                               text: "Confirm \(email) as your wallet's new email address. It then becomes your login, "
                                   + "in place of your current address.",
                               button: "Verify \(email) and make it my login")
        case .invalid:
            return invalidVerification.response()
        }
    }

    private func verify(_ request: Request, caller: Caller) async throws -> Response {
        try await posted(request) { token in
            switch try await enrollment.verifyEmail(token: token, caller: caller) {
            case .verified(let email):
                page(title: "Email verified", text: "Your email address \(email) is verified. You can return to the app.")
            case .changed(let email):
                page(title: "Email verified", text: "Your new email address \(email) is verified and is now your login.")
            case .taken(let email):
                page(.conflict, title: "This address is taken",
                     text: "\(email) now belongs to another wallet, so your email address was not changed.")
            case .invalid:
                invalidVerification.response()
            }
        }
    }

    private var invalidVerification: WebPage {
        WebPage.message(.badRequest, title: "This link does not work",
                        text: "The verification link is invalid, already used, or expired. Ask the app to send a new one.",
                        issuer: issuer)
    }

    // MARK: Email-change revert

    private func openRevert(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        guard let email = try await profile.revertLinkAddress(token: token) else { return invalidRevert.response() }
        return confirmPage(request, title: "Keep your email address?", token: token, action: "/revert-email",
                           text: "\(email) will be your wallet's email address and login again, and any change to "
                               + "another address is cancelled. Everyone signed in to your wallet, on every device, will be "
                               + "signed out, including whoever made the change.",
                           button: "Put \(email) back and sign everyone out")
    }

    private func revert(_ request: Request, caller: Caller) async throws -> Response {
        try await posted(request) { token in
            switch try await profile.revertEmailChange(token: token, caller: caller) {
            case .reverted(let email):
                page(title: "Email kept",
                     text: "\(email) is your wallet's address again and everyone was signed out. Sign in again, and change "
                         + "your password if you did not ask for the change.")
            case .taken(let email):
                page(.conflict, title: "This address is taken",
                     text: "\(email) now belongs to another wallet, so it could not be put back. Contact \(issuer.name).")
            case .invalid:
                invalidRevert.response()
            }
        }
    }

    private var invalidRevert: WebPage {
        WebPage.message(.badRequest, title: "This link does not work", text: "The link is invalid, already used, or expired.",
                        issuer: issuer)
    }

    // MARK: Held profile change

    private func openProfileChange(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        guard let fields = try await profile.profileChangeLinkFields(token: token) else { return invalidRevert.response() }
        let list = fields.joined(separator: ", ")
        return confirmPage(request, title: "Confirm the change to your profile", token: token, action: "/confirm-change",
                           text: "Someone signed in to your wallet asked to change: \(list). Confirm only if it was you; "
                               + "otherwise close this page, change your password from the app and contact \(issuer.name).",
                           button: "Confirm the change of \(list)")
    }

    private func confirmProfileChange(_ request: Request, caller: Caller) async throws -> Response {
        try await posted(request) { token in
            switch try await profile.confirmProfileChange(token: token, caller: caller) {
            case .changed(let fields):
                page(title: "Profile changed", text: "Your profile's \(fields.joined(separator: ", ")) is changed. You can return to the app.")
            case .refused(let reason):
                page(.conflict, title: "This change cannot be made",
                     text: "\(issuer.name)'s rules no longer allow it, so nothing was changed: \(reason)")
            case .invalid:
                invalidRevert.response()
            }
        }
    }

    // MARK: Pages and forms

    /// The page an opened link shows: what it will do, and the form that does it.
    private func confirmPage(_ request: Request, title: String, token: String, action: String, text: String, button: String)
        -> Response {
        let (cookie, setCookie) = csrf.cookie(of: request)
        return WebPage(template: "confirm", values: [
            "title": title, "issuer": issuer.name, "text": text, "action": action, "button": button, "token": token,
            "csrf": csrf.field(cookie: cookie, token: token),
        ]).response(cookie: setCookie)
    }

    /// An explaining page from the portal's templates.
    private func page(_ status: HTTPResponse.Status = .ok, title: String, text: String) -> Response {
        WebPage.message(status, title: title, text: text, issuer: issuer).response()
    }

    /// Does what a posted confirmation form asks with its token, once the form is whole and its
    /// CSRF field matches the cookie.
    private func posted(_ request: Request, _ act: (String) async throws -> Response) async throws -> Response {
        guard let form = try await decode(request) else { return badForm.response() }
        let token = form.token ?? ""
        guard csrf.verify(request, field: form.csrf, token: token) else { return expiredForm.response() }
        return try await act(token)
    }

    private func decode(_ request: Request) async throws -> Form? {
        guard let buffer = try? await request.body.collect(upTo: maxBodyBytes) else { return nil }
        return try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: buffer))
    }

    private var expiredForm: WebPage {
        WebPage.message(.forbidden, title: "This page has expired",
                        text: "The form could not be verified (cookies may be off, or the page is old). "
                            + "Open the link from your email again.", issuer: issuer)
    }

    private var badForm: WebPage {
        WebPage.message(.badRequest, title: "Something is missing", text: "The form was not sent completely. Try again.",
                        issuer: issuer)
    }
}
