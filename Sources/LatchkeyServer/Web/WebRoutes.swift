import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The email verification page (the links of registration, resend and email change).
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

    /// An explaining page from the portal's templates.
    static func page(status: HTTPResponse.Status, title: String, text: String, issuer: IssuerSettings) -> Response {
        WebPage.message(status, title: title, text: text, issuer: issuer).response()
    }
}
