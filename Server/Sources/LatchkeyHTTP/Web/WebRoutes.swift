import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyDomain
import NIOCore

/// The pages of the links in emails: email verification (registration, resend, email change), an
/// email change's revert link, and the confirmation of a held profile change. Mail scanners and link previewers open links, so opening one
/// (`GET`) only looks its token up and shows what it will do, with a form; the form's post (CSRF-
/// protected like the portal's) does it. Plain HTML, no JavaScript, in the browser's language
/// (`Accept-Language`; the catalog's `verify.*`, `revert.*` and `change.*` texts).
package struct WebRoutes: Sendable {
    package let enrollment: EnrollmentService
    package let profile: ProfileService
    package let issuer: IssuerSettings
    package let csrf: PortalCSRF
    package let maxBodyBytes: Int
    package let catalog: TextCatalog

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
        let texts = catalog.texts(for: request)
        switch try await enrollment.verificationLink(token: token) {
        case .verifies(let email):
            return confirmPage(request, "verify", values: ["email": email], token: token, action: "/verify-email", texts: texts)
        case .changes(let email):
            return confirmPage(request, "verify.change", values: ["email": email], token: token, action: "/verify-email", texts: texts)
        case .invalid:
            return page(.badRequest, "verify.invalid", title: "link.invalid.title", texts: texts)
        }
    }

    private func verify(_ request: Request, caller: Caller) async throws -> Response {
        try await posted(request) { token, texts in
            switch try await enrollment.verifyEmail(token: token, caller: caller) {
            case .verified(let email): page(.ok, "verify.done", values: ["email": email], texts: texts)
            case .changed(let email): page(.ok, "verify.changed", title: "verify.done.title", values: ["email": email], texts: texts)
            case .taken(let email): page(.conflict, "verify.taken", values: ["email": email], texts: texts)
            case .invalid: page(.badRequest, "verify.invalid", title: "link.invalid.title", texts: texts)
            }
        }
    }

    // MARK: Email-change revert

    private func openRevert(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        let texts = catalog.texts(for: request)
        guard let email = try await profile.revertLinkAddress(token: token) else { return page(.badRequest, "link.invalid", texts: texts) }
        return confirmPage(request, "revert", values: ["email": email], token: token, action: "/revert-email", texts: texts)
    }

    private func revert(_ request: Request, caller: Caller) async throws -> Response {
        try await posted(request) { token, texts in
            switch try await profile.revertEmailChange(token: token, caller: caller) {
            case .reverted(let email): page(.ok, "revert.done", values: ["email": email], texts: texts)
            case .taken(let email): page(.conflict, "revert.taken", title: "verify.taken.title", values: ["email": email], texts: texts)
            case .invalid: page(.badRequest, "link.invalid", texts: texts)
            }
        }
    }

    // MARK: Held profile change

    private func openProfileChange(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        let texts = catalog.texts(for: request)
        guard let fields = try await profile.profileChangeLinkFields(token: token) else {
            return page(.badRequest, "link.invalid", texts: texts)
        }
        return confirmPage(request, "change", values: ["fields": fields.joined(separator: ", ")], token: token, action: "/confirm-change",
                           texts: texts)
    }

    private func confirmProfileChange(_ request: Request, caller: Caller) async throws -> Response {
        try await posted(request) { token, texts in
            switch try await profile.confirmProfileChange(token: token, caller: caller) {
            case .changed(let fields): page(.ok, "change.done", values: ["fields": fields.joined(separator: ", ")], texts: texts)
            case .refused(let reason): page(.conflict, "change.refused", values: ["reason": texts.api(reason)], texts: texts)
            case .invalid: page(.badRequest, "link.invalid", texts: texts)
            }
        }
    }

    // MARK: Pages and forms

    /// The page an opened link shows: what it will do (the catalog's `key.title`, `key.text`,
    /// `key.button`), and the form that does it.
    private func confirmPage(_ request: Request, _ key: String, values: [String: String], token: String, action: String,
                             texts: LocalizedTexts) -> Response {
        let (cookie, setCookie) = csrf.cookie(of: request)
        var values = values
        values["issuer"] = issuer.name
        return WebPage(template: "confirm", values: [
            "title": texts.portal(key + ".title", values), "issuer": issuer.name, "text": texts.portal(key + ".text", values),
            "action": action, "button": texts.portal(key + ".button", values), "token": token,
            "csrf": csrf.field(cookie: cookie, token: token),
        ], language: texts.language).response(cookie: setCookie)
    }

    /// An explaining page of the catalog's `key.title` (or `title`) and `key.text`.
    private func page(_ status: HTTPResponse.Status, _ key: String, title: String? = nil, values: [String: String] = [:],
                      texts: LocalizedTexts) -> Response {
        var values = values
        values["issuer"] = issuer.name
        return WebPage.message(status, key, title: title, values: values, texts: texts, issuerName: issuer.name).response()
    }

    /// Does what a posted confirmation form asks with its token, once the form is whole and its
    /// CSRF field matches the cookie.
    private func posted(_ request: Request, _ act: (String, LocalizedTexts) async throws -> Response) async throws -> Response {
        let texts = catalog.texts(for: request)
        guard let form = try await decode(request) else { return page(.badRequest, "form.incomplete", texts: texts) }
        let token = form.token ?? ""
        guard csrf.verify(request, field: form.csrf, token: token) else { return page(.forbidden, "form.expired", texts: texts) }
        return try await act(token, texts)
    }

    private func decode(_ request: Request) async throws -> Form? {
        guard let buffer = try? await request.body.collect(upTo: maxBodyBytes) else { return nil }
        return try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: buffer))
    }
}
