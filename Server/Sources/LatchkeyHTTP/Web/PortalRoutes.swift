import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import NIOCore

/// The secure portal a reset link opens: the link's MFA question, then the form for the new
/// password or PIN, then a success page. Plain HTML forms (no JavaScript), CSRF-protected.
package struct PortalRoutes: Sendable {
    package let portal: ResetPortalService
    package let issuer: IssuerSettings
    package let csrf: PortalCSRF
    package let maxBodyBytes: Int

    /// The fields the portal's forms post.
    package struct Form: Decodable {
        package var token: String?
        package var grant: String?
        package var csrf: String?
        package var answer: String?
        package var new: String?
        package var confirm: String?
    }

    package func add(to router: RouterGroup<AppRequestContext>) {
        router.get("/portal.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600",
                                            HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                     body: .init(byteBuffer: ByteBuffer(string: PortalTemplates.stylesheet)))
        }
        router.get("/reset") { request, _ in try await open(request) }
        // The portal's steps that hash skip the hash for a visitor who has left (`HashGate`).
        router.post("/reset/answer") { request, context in try await answer(request, caller: context.pageCaller) }
        router.post("/reset/credential") { request, context in
            try await complete(request, caller: context.pageCaller)
        }
    }

    private func open(_ request: Request) async throws -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        switch try await portal.openReset(token: token) {
        case .question(let kind, let question):
            let (cookie, setCookie) = csrf.cookie(of: request)
            return questionPage(kind: kind, question: question, token: token, cookie: cookie).response(cookie: setCookie)
        case .invalid: return usedLink.response()
        case .locked: return locked.response()
        case .resting(let until): return resting(until).response(retryAfter: until)
        }
    }

    private func answer(_ request: Request, caller: Caller) async throws -> Response {
        guard let form = try await decode(request) else { return badForm.response() }
        let token = form.token ?? ""
        guard csrf.verify(request, field: form.csrf, token: token) else { return expiredForm.response() }
        let cookie = request.cookies[PortalCSRF.cookieName]?.value ?? ""
        switch try await portal.answerReset(token: token, answer: form.answer ?? "", caller: caller) {
        case .granted(let kind, let grant):
            return credentialPage(kind: kind, grant: grant, cookie: cookie, error: nil).response()
        case .wrong(let kind, let question, let remaining):
            var page = questionPage(kind: kind, question: question, token: token, cookie: cookie)
            page.status = .unprocessableContent
            page.values["error"] = "That answer is not correct. "
                + (remaining == 1 ? "One more try is left on this link." : "\(remaining) more tries are left on this link.")
            return page.response()
        case .spent:
            return WebPage.message(.gone, title: "Too many wrong answers",
                                   text: "This link no longer works. Wrong answers also count toward locking your wallet. "
                                       + "Ask the app for a new link if you want to try again.", issuer: issuer).response()
        case .invalid: return usedLink.response()
        case .locked: return locked.response()
        case .resting(let until): return resting(until).response(retryAfter: until)
        }
    }

    private func complete(_ request: Request, caller: Caller) async throws -> Response {
        guard let form = try await decode(request) else { return badForm.response() }
        let grant = form.grant ?? ""
        guard csrf.verify(request, field: form.csrf, token: grant) else { return expiredForm.response() }
        let cookie = request.cookies[PortalCSRF.cookieName]?.value ?? ""
        switch try await portal.completeReset(grant: grant, new: form.new ?? "", confirm: form.confirm ?? "",
                                                    caller: caller) {
        case .done(let kind):
            let text = kind == .password
                ? "Your new password is set. For your safety you were signed out everywhere; sign in to the app again."
                : "Your new PIN is set. You can use it in the app now."
            return WebPage.message(title: "Your \(kind.displayName) is reset", text: text, issuer: issuer).response()
        case .refused(let kind, let error):
            var page = credentialPage(kind: kind, grant: grant, cookie: cookie, error: error)
            page.status = .unprocessableContent
            return page.response()
        case .invalid: return usedLink.response()
        case .locked: return locked.response()
        }
    }

    private func decode(_ request: Request) async throws -> Form? {
        guard let buffer = try? await request.body.collect(upTo: maxBodyBytes) else { return nil }
        return try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: buffer))
    }

    private func questionPage(kind: CredentialKind, question: String?, token: String, cookie: String) -> WebPage {
        var values: [String: Any] = ["title": "Reset your \(kind.displayName)", "issuer": issuer.name,
                                     "credential": kind.displayName, "token": token,
                                     "csrf": csrf.field(cookie: cookie, token: token)]
        if let question { values["question"] = question }
        return WebPage(template: "question", values: values)
    }

    private func credentialPage(kind: CredentialKind, grant: String, cookie: String, error: String?) -> WebPage {
        var values: [String: Any] = ["title": "Choose a new \(kind.displayName)", "issuer": issuer.name,
                                     "credential": kind.displayName, "grant": grant,
                                     "csrf": csrf.field(cookie: cookie, token: grant),
                                     "numeric": kind == .passcode && issuer.passcode.numericOnly,
                                     "rules": kind == .password ? issuer.password.ruleDescriptions : issuer.passcode.ruleDescriptions]
        if let error { values["error"] = error }
        return WebPage(template: "credential", values: values)
    }

    private var usedLink: WebPage {
        WebPage.message(.gone, title: "This link does not work",
                        text: "This reset link was already used or has expired. Ask the app to send a new one.", issuer: issuer)
    }

    /// The account used its answers for now: when to come back (UTC, and in the Retry-After header).
    private func resting(_ until: Date) -> WebPage {
        let when = until.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon))
        return WebPage.message(.tooManyRequests, title: "Too many answers for now",
                               text: "This wallet has had too many answers to its security question. No answer is checked "
                                   + "until \(when) UTC; come back then (a new link from the app works too).", issuer: issuer)
    }

    private var locked: WebPage {
        WebPage.message(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), title: "Your account is locked",
                        text: "An administrator locked this wallet, so its credentials cannot be changed. Contact \(issuer.name).",
                        issuer: issuer)
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
