import Foundation

/// The emails Latchkey sends, built in one place.
enum MessageTemplates {
    /// The link that verifies an address (registration, resend, email change).
    static func verification(to email: String, firstName: String?, link: String, issuer: IssuerSettings,
                             template: String = "email_verification") -> OutgoingMessage {
        let greeting = firstName.map { "Hello \($0)," } ?? "Hello,"
        return OutgoingMessage(
            channel: .email, to: email, template: template, subject: "Verify your email for \(issuer.name)",
            body: "\(greeting)\n\nOpen this link to verify your email address for \(issuer.name):\n\(link)\n\n"
                + "The link works once and expires in 24 hours.",
            data: ["link": link])
    }

    /// The notice to the old address when a change to a new one is requested.
    static func emailChangeNotice(to old: String, new: String, issuer: IssuerSettings) -> OutgoingMessage {
        OutgoingMessage(
            channel: .email, to: old, template: "email_change_notice", subject: "Your \(issuer.name) email is changing",
            body: "Someone signed in to your \(issuer.name) wallet asked to change its email address to \(new). "
                + "The change takes effect once the new address is verified. If this was not you, contact \(issuer.name).",
            data: ["newEmail": new])
    }

    /// How long verification links work.
    static let verificationLifetime: TimeInterval = 24 * 3600
}
