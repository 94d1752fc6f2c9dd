import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import LatchkeyHTTP
import NIOCore

/// The operator console (`/console`): server-rendered pages that work without JavaScript, for an
/// operator signed in with a password and an authenticator code. It does what the admin API does,
/// through the same operator services (`OperatorServices`) and roles; every action asks for a confirmation first and
/// every form carries a CSRF field.
struct ConsoleRoutes: Sendable {
    let console: ConsoleService
    let operators: OperatorServices
    let cookies: ConsoleCookies
    /// The pre-sign-in forms' CSRF (a cookie and an HMAC of it, as the portal's forms).
    let formCSRF: PortalCSRF
    let throttle: Throttle
    let proxies: TrustedProxies
    let perAddress: Int
    let issuerName: String
    let maxBodyBytes: Int
    let now: @Sendable () -> Date

    /// An operator signed in, for the page being answered.
    struct SignedIn {
        let token: String
        let session: ConsoleSession
        let account: OperatorAccount
        let clientIP: String
        let csrf: String
        var call: OperatorCall { OperatorCall(console: account, clientIP: clientIP) }
    }

    /// The console's routes, for the 405s of the error middleware.
    static let table: RouteTable = {
        var table = RouteTable()
        for (method, path) in [(HTTPRequest.Method.get, "/console"), (.get, "/console/console.css"), (.get, "/console/login"),
                               (.post, "/console/login"), (.get, "/console/setup"), (.post, "/console/setup"), (.post, "/console/logout"),
                               (.get, "/console/users"), (.get, "/console/users/{id}"), (.get, "/console/users/{id}/confirm"),
                               (.post, "/console/users/{id}/actions"), (.get, "/console/events"), (.get, "/console/courier")] {
            table.add(method, path)
        }
        return table
    }()

    func add(to router: RouterGroup<AppRequestContext>) {
        router.get("/console/console.css") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600",
                                            HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                     body: .init(byteBuffer: ByteBuffer(string: ConsoleTemplates.stylesheet)))
        }
        router.get("/console/login") { request, context in try await limited(request, context) { _ in loginPage(request) } }
        router.post("/console/login") { request, context in try await limited(request, context) { ip in try await signIn(request, ip: ip) } }
        router.get("/console/setup") { request, context in try await limited(request, context) { _ in try await setupPage(request) } }
        router.post("/console/setup") { request, context in try await limited(request, context) { ip in try await setUp(request, ip: ip) } }
        router.post("/console/logout") { request, context in
            try await signedIn(request, context) { staff in
                guard cookies.verify(try await form(request)["csrf"], forSession: staff.session.digest) else { return staleForm(staff) }
                try await console.signOut(token: staff.token, account: staff.account, clientIP: staff.clientIP)
                return ConsolePage.redirect("/console/login", cookies: [cookies.cleared()])
            }
        }
        router.get("/console") { request, context in try await signedIn(request, context) { try await dashboard($0) } }
        router.get("/console/users") { request, context in try await signedIn(request, context) { try await users(request, $0) } }
        router.get("/console/users/:id") { request, context in
            try await signedIn(request, context) { try await user(context.parameters.get("id") ?? "", request, $0) }
        }
        router.get("/console/users/:id/confirm") { request, context in
            try await signedIn(request, context) { try await confirm(context.parameters.get("id") ?? "", request, $0) }
        }
        router.post("/console/users/:id/actions") { request, context in
            try await signedIn(request, context) { try await act(context.parameters.get("id") ?? "", request, $0) }
        }
        router.get("/console/events") { request, context in try await signedIn(request, context) { try await events(request, $0) } }
        router.get("/console/courier") { request, context in try await signedIn(request, context) { try await courier(request, $0) } }
    }

    // MARK: The edge of every page

    /// Counts the page against the client address's limit (the admin API's), then answers it.
    private func limited(_ request: Request, _ context: AppRequestContext, _ body: (String) async throws -> Response) async throws -> Response {
        let ip = proxies.clientAddress(of: request, peer: context.remoteAddress)
        if let wait = try await throttle.refusal("admin-ip:" + ip, limit: perAddress) {
            var response = page(.tooManyRequests, "Too many requests", text: "Wait a minute, then try again.").response()
            response.headers[.retryAfter] = String(wait)
            return response
        }
        return try await body(ip)
    }

    /// Answers a page for a signed-in operator, or sends the browser to the sign-in page.
    private func signedIn(_ request: Request, _ context: AppRequestContext,
                          _ body: (SignedIn) async throws -> Response) async throws -> Response {
        try await limited(request, context) { ip in
            guard let token = cookies.token(of: request), let (session, account) = try await console.session(token: token) else {
                return ConsolePage.redirect("/console/login")
            }
            return try await body(SignedIn(token: token, session: session, account: account, clientIP: ip,
                                           csrf: cookies.csrf(forSession: session.digest)))
        }
    }

    /// A posted form's fields (nil values for what is absent).
    func form(_ request: Request) async throws -> [String: String] {
        guard let buffer = try? await request.body.collect(upTo: maxBodyBytes) else { return [:] }
        var fields: [String: String] = [:]
        for pair in String(buffer: buffer).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first, fields[name] == nil { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    /// The values every page has.
    func values(_ title: String, _ staff: SignedIn?) -> [String: Any] {
        var values: [String: Any] = ["title": title, "issuer": issuerName]
        if let staff {
            values["operator"] = true
            values["staffEmail"] = staff.account.email
            values["staffRole"] = staff.account.role.rawValue
            values["csrf"] = staff.csrf
        }
        return values
    }

    func page(_ status: HTTPResponse.Status = .ok, _ title: String, text: String, back: String? = nil, staff: SignedIn? = nil) -> ConsolePage {
        var values = values(title, staff)
        values["text"] = text
        if let back { values["back"] = back }
        return ConsolePage(status: status, template: "message", values: values)
    }

    func staleForm(_ staff: SignedIn) -> Response {
        page(.forbidden, "The form has expired", text: "Nothing was changed. Open the page again and repeat.", back: "/console",
             staff: staff).response()
    }

    // MARK: Sign-in and setup

    private func loginPage(_ request: Request, error: String? = nil, email: String = "", status: HTTPResponse.Status = .ok) -> Response {
        let (cookie, setCookie) = formCSRF.cookie(of: request)
        var values = values("Sign in", nil)
        values["formCSRF"] = formCSRF.field(cookie: cookie, token: "console-login")
        values["email"] = email
        if let error { values["error"] = error }
        return ConsolePage(status: status, template: "login", values: values).response(cookies: setCookie.map { [$0] } ?? [])
    }

    private func signIn(_ request: Request, ip: String) async throws -> Response {
        let fields = try await form(request)
        guard formCSRF.verify(request, field: fields["csrf"], token: "console-login") else {
            return loginPage(request, error: "The form had expired; nothing was sent. Sign in again.", status: .forbidden)
        }
        let email = fields["email"] ?? ""
        switch try await console.signIn(email: email, password: fields["password"] ?? "", code: fields["code"] ?? "", clientIP: ip) {
        case .signedIn(let token, _):
            return ConsolePage.redirect("/console", cookies: [cookies.session(token)])
        case .refused:
            return loginPage(request, error: "The email, password or code is not correct, or the account is locked for a while.",
                             email: email, status: .unauthorized)
        }
    }

    private func setupPage(_ request: Request, token: String? = nil, error: String? = nil,
                           status: HTTPResponse.Status = .ok) async throws -> Response {
        let token = token ?? request.uri.queryParameters.get("token") ?? ""
        guard let (account, totp) = try await console.openSetup(token: token) else {
            return page(.gone, "This setup link does not work", text: "It was used, or it expired. Ask an administrator for a new one "
                + "(latchkey operators create).").response()
        }
        let (cookie, setCookie) = formCSRF.cookie(of: request)
        var values = values("Set up your console account", nil)
        values["account"] = account.email
        values["accountRole"] = account.role.rawValue
        values["secret"] = totp.manualEntry
        let uri = totp.uri(account: account.email, issuer: issuerName)
        values["uri"] = uri
        // The URI as a QR code for the phone; one too long for a QR code (an address of thousands
        // of characters) leaves the link and the key.
        if let code = try? QRCode(text: uri) {
            values["hasQR"] = true
            values["qr"] = code.svg(id: "qr", label: "QR code of the authenticator link")
        }
        values["token"] = token
        values["formCSRF"] = formCSRF.field(cookie: cookie, token: token)
        if let error { values["error"] = error }
        return ConsolePage(status: status, template: "setup", values: values).response(cookies: setCookie.map { [$0] } ?? [])
    }

    private func setUp(_ request: Request, ip: String) async throws -> Response {
        let fields = try await form(request)
        let token = fields["token"] ?? ""
        guard formCSRF.verify(request, field: fields["csrf"], token: token) else {
            return try await setupPage(request, token: token, error: "The form had expired; nothing was set. Try again.", status: .forbidden)
        }
        switch try await console.completeSetup(token: token, password: fields["password"] ?? "", confirm: fields["confirm"] ?? "",
                                               code: fields["code"] ?? "", clientIP: ip) {
        case .done(let session): return ConsolePage.redirect("/console", cookies: [cookies.session(session)])
        case .invalidLink: return try await setupPage(request, token: token)
        case .refused(_, let message): return try await setupPage(request, token: token, error: message, status: .unprocessableContent)
        }
    }
}
