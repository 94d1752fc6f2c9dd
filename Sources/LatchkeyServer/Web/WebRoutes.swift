import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The email verification page (the links of registration, resend and email change).
enum WebRoutes {
    static func add(to router: Router<AppRequestContext>, enrollment: EnrollmentService, profile: ProfileService,
                    issuer: IssuerSettings) {
        router.get("/revert-email") { request, _ -> Response in
            switch try await profile.revertEmailChange(token: request.uri.queryParameters.get("token") ?? "") {
            case .reverted(let email):
                page(status: .ok, title: "Email kept",
                     text: "\(email) is your wallet's address again and everyone was signed out. Sign in again, and change "
                         + "your password if you did not ask for the change.", issuer: issuer)
            case .taken(let email):
                page(status: .conflict, title: "This address is taken",
                     text: "\(email) now belongs to another wallet, so it could not be put back. Contact \(issuer.name).",
                     issuer: issuer)
            case .invalid:
                page(status: .badRequest, title: "This link does not work",
                     text: "The link is invalid, already used, or expired.", issuer: issuer)
            }
        }
        router.get("/verify-email") { request, _ -> Response in
            switch try await enrollment.verifyEmail(token: request.uri.queryParameters.get("token") ?? "") {
            case .verified(let email):
                page(status: .ok, title: "Email verified",
                     text: "Your email address \(email) is verified. You can return to the app.", issuer: issuer)
            case .changed(let email):
                page(status: .ok, title: "Email verified",
                     text: "Your new email address \(email) is verified and is now your login.", issuer: issuer)
            case .taken(let email):
                page(status: .conflict, title: "This address is taken",
                     text: "\(email) now belongs to another wallet, so your email address was not changed.", issuer: issuer)
            case .invalid:
                page(status: .badRequest, title: "This link does not work",
                     text: "The verification link is invalid, already used, or expired. Ask the app to send a new one.",
                     issuer: issuer)
            }
        }
    }

    /// An explaining page from the portal's templates.
    static func page(status: HTTPResponse.Status, title: String, text: String, issuer: IssuerSettings) -> Response {
        WebPage.message(status, title: title, text: text, issuer: issuer).response()
    }
}
