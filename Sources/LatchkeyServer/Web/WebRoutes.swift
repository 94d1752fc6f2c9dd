import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Server-rendered pages, usable without JavaScript.
enum WebRoutes {
    static func add(to router: Router<AppRequestContext>, store: any LatchkeyStore, issuer: IssuerSettings,
                    now: @escaping @Sendable () -> Date) {
        router.get("/verify-email") { request, _ -> Response in
            let digest = SecureRandom.digest(request.uri.queryParameters.get("token") ?? "")
            let time = now()
            if let record = try await store.consumeToken(digest: digest, purpose: .emailVerification, now: time),
               let user = try await store.user(id: record.userID) {
                try await store.markEmailVerified(userID: user.id)
                if time >= user.createdAt.addingTimeInterval(TimeInterval(issuer.appInstanceVerificationSeconds)) {
                    try await store.markAppInstanceVerified(userID: user.id)
                }
                return page(status: .ok, title: "Email verified",
                            text: "Your email address \(user.email) is verified. You can return to the app.", issuer: issuer)
            }
            if let record = try await store.consumeToken(digest: digest, purpose: .emailChange, now: time),
               let email = record.data {
                do {
                    try await store.changeEmail(userID: record.userID, email: email, now: time)
                } catch StoreError.emailInUse {
                    return page(status: .conflict, title: "This address is taken",
                                text: "\(email) now belongs to another wallet, so your email address was not changed.",
                                issuer: issuer)
                }
                return page(status: .ok, title: "Email verified",
                            text: "Your new email address \(email) is verified and is now your login.", issuer: issuer)
            }
            return page(status: .badRequest, title: "This link does not work",
                        text: "The verification link is invalid, already used, or expired. Ask the app to send a new one.",
                        issuer: issuer)
        }
    }

    /// A minimal, self-contained HTML page; every value is escaped.
    static func page(status: HTTPResponse.Status, title: String, text: String, issuer: IssuerSettings) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · \(escape(issuer.name))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
            </head><body><main><h1>\(escape(title))</h1><p>\(escape(text))</p><p><small>\(escape(issuer.name))</small></p></main></body></html>
            """
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                                  HTTPField.Name("Referrer-Policy")!: "no-referrer"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}
