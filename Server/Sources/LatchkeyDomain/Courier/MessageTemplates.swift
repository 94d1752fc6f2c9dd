import Foundation

/// The emails Latchkey sends, built in one place.
package enum MessageTemplates {
    /// The link that verifies an address (registration, resend, email change).
    package static func verification(to email: String, firstName: String?, link: String, issuer: IssuerSettings,
                             template: String = "email_verification") -> OutgoingMessage {
        let greeting = firstName.map { "Hello \($0)," } ?? "Hello,"
        return OutgoingMessage(
            channel: .email, to: email, template: template, subject: "Verify your email for \(issuer.name)",
            body: "\(greeting)\n\nOpen this link to verify your email address for \(issuer.name):\n\(link)\n\n"
                + "The link works once and expires in 24 hours.",
            data: ["link": link])
    }

    /// The notice to the old address when a change to a new one is requested.
    package static func emailChangeNotice(to old: String, new: String, revertLink: String, issuer: IssuerSettings) -> OutgoingMessage {
        OutgoingMessage(
            channel: .email, to: old, template: "email_change_notice", subject: "Your \(issuer.name) email is changing",
            body: "Someone signed in to your \(issuer.name) wallet asked to change its email address to \(new). "
                + "The change takes effect once the new address is verified. If this was not you, open this link to keep "
                + "this address and sign everyone out of the wallet (it works for 7 days):\n\(revertLink)",
            data: ["newEmail": new, "link": revertLink])
    }

    /// How long the old address can put an email change back.
    package static let revertLifetime: TimeInterval = 7 * 86_400

    /// The notice to the owner that something guarding the wallet changed (`change` names it).
    /// `byImport`: the change was an import of the issuer's accounts, not someone signed in to the
    /// wallet, and the notice says so.
    package static func securityNotice(to email: String, change: String, issuer: IssuerSettings,
                                       byImport: Bool = false) -> OutgoingMessage {
        let changed = byImport
            ? "was just replaced by \(issuer.name) in an import of accounts. If you did not expect this"
            : "was just changed by someone signed in to it. If this was not you"
        return OutgoingMessage(
            channel: .email, to: email, template: "security_notice", subject: "Security notice from \(issuer.name)",
            body: "The \(change) of your \(issuer.name) wallet \(changed), reset your password from the app at once and contact \(issuer.name).",
            data: ["change": change])
    }

    /// The link that confirms a change of fields the issuer wants confirmed (`reverificationRequired`).
    package static func profileChangeConfirmation(to email: String, firstName: String?, fields: [String], link: String,
                                                  issuer: IssuerSettings) -> OutgoingMessage {
        let greeting = firstName.map { "Hello \($0)," } ?? "Hello,"
        let list = fields.joined(separator: ", ")
        return OutgoingMessage(
            channel: .email, to: email, template: "profile_change_confirmation", subject: "Confirm the change to your \(issuer.name) profile",
            body: "\(greeting)\n\nSomeone signed in to your \(issuer.name) wallet asked to change: \(list). The change takes "
                + "effect once you confirm it with this link (it works once and expires in 24 hours):\n\(link)\n\n"
                + "If this was not you, do not open the link: change your password from the app and contact \(issuer.name).",
            data: ["link": link, "fields": list])
    }

    /// How long verification links work.
    package static let verificationLifetime: TimeInterval = 24 * 3600
}

extension MessageTemplates {
    /// The link to the secure portal that resets a forgotten password or PIN.
    package static func reset(_ kind: CredentialKind, to email: String, firstName: String?, link: String, minutes: Int,
                      issuer: IssuerSettings) -> OutgoingMessage {
        let greeting = firstName.map { "Hello \($0)," } ?? "Hello,"
        return OutgoingMessage(
            channel: .email, to: email, template: "\(kind.rawValue)_reset", subject: "Reset your \(issuer.name) \(kind.displayName)",
            body: "\(greeting)\n\nSomeone asked to reset the \(kind.displayName) of your \(issuer.name) wallet. "
                + "Open this link to answer one of your security questions and choose a new \(kind.displayName):\n\(link)\n\n"
                + "The link works once and expires in \(minutes) minutes. If this was not you, ignore this email.",
            data: ["link": link])
    }

    /// The notice that a reset completed.
    package static func resetNotice(_ kind: CredentialKind, to email: String, issuer: IssuerSettings) -> OutgoingMessage {
        OutgoingMessage(
            channel: .email, to: email, template: "\(kind.rawValue)_reset_notice",
            subject: "Your \(issuer.name) \(kind.displayName) was reset",
            body: "The \(kind.displayName) of your \(issuer.name) wallet was just reset through the secure portal. "
                + "If this was not you, contact \(issuer.name) at once.",
            data: [:])
    }
}

extension MessageTemplates {
    /// The one-time code of a phone verification.
    package static func otp(to phone: String, code: String, minutes: Int, issuer: IssuerSettings) -> OutgoingMessage {
        OutgoingMessage(channel: .sms, to: phone, template: "otp", subject: "\(issuer.name) code",
                        body: "\(code) is your \(issuer.name) code. It expires in \(minutes) minutes. Do not share it.",
                        data: ["code": code])
    }
}
