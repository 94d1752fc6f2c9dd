import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import NIOCore

/// The secure portal a reset link opens: the link's MFA question, then the form for the new
/// password or PIN, then a success page. Plain HTML forms (no JavaScript), CSRF-protected, in the
/// browser's language (`Accept-Language`; the catalog's `reset.*` texts).
package struct PortalRoutes: Sendable {
    package let portal: ResetPortalService
    package let issuer: IssuerSettings
    package let csrf: PortalCSRF
    package let maxBodyBytes: Int
    package let catalog: TextCatalog

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
        let texts = catalog.texts(for: request)
        switch try await portal.openReset(token: token) {
        case .question(let kind, let question):
            let (cookie, setCookie) = csrf.cookie(of: request)
            return questionPage(kind: kind, question: question, token: token, cookie: cookie, texts: texts).response(cookie: setCookie)
        case .invalid: return message(.gone, "reset.used", title: "link.invalid.title", texts).response()
        case .locked: return message(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), "reset.locked", texts).response()
        case .resting(let until): return resting(until, texts).response(retryAfter: until)
        }
    }

    private func answer(_ request: Request, caller: Caller) async throws -> Response {
        let texts = catalog.texts(for: request)
        guard let form = try await decode(request) else { return message(.badRequest, "form.incomplete", texts).response() }
        let token = form.token ?? ""
        guard csrf.verify(request, field: form.csrf, token: token) else { return message(.forbidden, "form.expired", texts).response() }
        let cookie = request.cookies[PortalCSRF.cookieName]?.value ?? ""
        switch try await portal.answerReset(token: token, answer: form.answer ?? "", caller: caller) {
        case .granted(let kind, let grant):
            return credentialPage(kind: kind, grant: grant, cookie: cookie, error: nil, texts: texts).response()
        case .wrong(let kind, let question, let remaining):
            var page = questionPage(kind: kind, question: question, token: token, cookie: cookie, texts: texts)
            page.status = .unprocessableContent
            page.values["error"] = remaining == 1
                ? texts.portal("reset.wrongAnswer.one") : texts.portal("reset.wrongAnswer.many", ["remaining": String(remaining)])
            return page.response()
        case .spent: return message(.gone, "reset.spent", texts).response()
        case .invalid: return message(.gone, "reset.used", title: "link.invalid.title", texts).response()
        case .locked: return message(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), "reset.locked", texts).response()
        case .resting(let until): return resting(until, texts).response(retryAfter: until)
        }
    }

    private func complete(_ request: Request, caller: Caller) async throws -> Response {
        let texts = catalog.texts(for: request)
        guard let form = try await decode(request) else { return message(.badRequest, "form.incomplete", texts).response() }
        let grant = form.grant ?? ""
        guard csrf.verify(request, field: form.csrf, token: grant) else { return message(.forbidden, "form.expired", texts).response() }
        let cookie = request.cookies[PortalCSRF.cookieName]?.value ?? ""
        switch try await portal.completeReset(grant: grant, new: form.new ?? "", confirm: form.confirm ?? "",
                                                    caller: caller) {
        case .done(let kind):
            return message(.ok, "reset.\(kind.rawValue).done", texts).response()
        case .refused(let kind, let error):
            var page = credentialPage(kind: kind, grant: grant, cookie: cookie, error: texts.api(error), texts: texts)
            page.status = .unprocessableContent
            return page.response()
        case .invalid: return message(.gone, "reset.used", title: "link.invalid.title", texts).response()
        case .locked: return message(HTTPResponse.Status(code: 423, reasonPhrase: "Locked"), "reset.locked", texts).response()
        }
    }

    private func decode(_ request: Request) async throws -> Form? {
        guard let buffer = try? await request.body.collect(upTo: maxBodyBytes) else { return nil }
        return try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: buffer))
    }

    /// The question of a reset link; the catalog's keys per kind (`reset.password.*`, `reset.passcode.*`),
    /// since a sentence's grammar depends on its noun.
    private func questionPage(kind: CredentialKind, question: String?, token: String, cookie: String, texts: LocalizedTexts) -> WebPage {
        var values: [String: Any] = ["title": texts.portal("reset.\(kind.rawValue).title"), "issuer": issuer.name,
                                     "intro": texts.portal("reset.\(kind.rawValue).intro"), "noQuestion": texts.portal("reset.noQuestion"),
                                     "continue": texts.portal("button.continue"), "token": token,
                                     "csrf": csrf.field(cookie: cookie, token: token)]
        if let question { values["question"] = question }
        return WebPage(template: "question", values: values, language: texts.language)
    }

    /// The form for the new credential, with the issuer's rules in the reader's language.
    private func credentialPage(kind: CredentialKind, grant: String, cookie: String, error: String?, texts: LocalizedTexts) -> WebPage {
        let rules = kind == .password ? issuer.password.ruleTexts : issuer.passcode.ruleTexts
        var values: [String: Any] = ["title": texts.portal("reset.\(kind.rawValue).choose"), "issuer": issuer.name,
                                     "newLabel": texts.portal("reset.\(kind.rawValue).new"),
                                     "repeatLabel": texts.portal("reset.\(kind.rawValue).repeat"),
                                     "setLabel": texts.portal("reset.\(kind.rawValue).set"), "rulesLabel": texts.portal("reset.rules"),
                                     "grant": grant, "csrf": csrf.field(cookie: cookie, token: grant),
                                     "numeric": kind == .passcode && issuer.passcode.numericOnly,
                                     "rules": rules.map(texts.api)]
        if let error { values["error"] = error }
        return WebPage(template: "credential", values: values, language: texts.language)
    }

    /// The account used its answers for now: when to come back (UTC, and in the Retry-After header).
    private func resting(_ until: Date, _ texts: LocalizedTexts) -> WebPage {
        let when = until.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon))
        return message(.tooManyRequests, "reset.resting", values: ["until": when], texts)
    }

    /// An explaining page of the catalog's `key.title` (or `title`) and `key.text`.
    private func message(_ status: HTTPResponse.Status, _ key: String, title: String? = nil, values: [String: String] = [:],
                         _ texts: LocalizedTexts) -> WebPage {
        var values = values
        values["issuer"] = issuer.name
        return WebPage.message(status, key, title: title, values: values, texts: texts, issuerName: issuer.name)
    }
}
