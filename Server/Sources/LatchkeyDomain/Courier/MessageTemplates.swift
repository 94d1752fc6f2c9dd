import Foundation

/// A message Latchkey sends: the name of its template directory
/// (`Resources/templates/<language>/<name>/`, or the issuer's `courier.templates`), its channel,
/// and the variables its template may use. A template that uses any other name is refused when
/// the server starts and by `latchkey config check` (`MessageCatalog`).
package struct MessageTemplate: Sendable, Hashable {
    /// The template's directory name, recorded with the message in the outbox.
    package let name: String
    package let channel: OutgoingMessage.Channel
    /// The values the template may print (`{{link}}`); those in `optional` may be missing, so a
    /// template tests them (`{{#firstName}}…{{/firstName}}`).
    package let values: [String]
    package let optional: [String]
    /// The yes/no facts the template chooses its wording by (`{{#byImport}}…{{/byImport}}`).
    package let flags: [String]

    init(_ name: String, _ channel: OutgoingMessage.Channel = .email, values: [String], optional: [String] = [], flags: [String] = []) {
        self.name = name
        self.channel = channel
        self.values = values
        self.optional = optional
        self.flags = flags
    }

    /// Every name the template may use.
    package var variables: [String] { values + flags }

    /// The files of the template: an email has a subject, a text and an HTML body; an SMS only its text.
    package var files: [MessageCatalog.Part] { channel == .email ? [.subject, .text, .html] : [.text] }
}

extension MessageTemplate {
    /// The link that verifies an address: registration, resend, sign-up, SSO.
    package static let emailVerification = MessageTemplate("email_verification", values: ["issuer", "firstName", "link", "hours"],
                                                           optional: ["firstName"])
    /// The link that verifies the new address of an email change.
    package static let emailChangeVerification = MessageTemplate("email_change_verification",
                                                                 values: ["issuer", "firstName", "link", "hours"], optional: ["firstName"])
    /// The notice to the old address of an email change, with the link that puts it back.
    package static let emailChangeNotice = MessageTemplate("email_change_notice", values: ["issuer", "newEmail", "link", "days"])
    /// The link that confirms a change of the fields the issuer wants confirmed.
    package static let profileChangeConfirmation = MessageTemplate("profile_change_confirmation",
                                                                   values: ["issuer", "firstName", "fields", "link", "hours"],
                                                                   optional: ["firstName"])
    /// The notice that something guarding the wallet changed: one flag names what, `byImport`
    /// tells an import of the issuer's accounts from someone signed in to the wallet;
    /// `remaining` is the count of recovery codes left after one was used.
    package static let securityNotice = MessageTemplate("security_notice", values: ["issuer", "remaining"], optional: ["remaining"],
                                                        flags: SecurityChange.allCases.map(\.rawValue) + ["byImport"])
    /// The link to the secure portal that resets a forgotten password or PIN.
    package static func reset(_ kind: CredentialKind) -> MessageTemplate {
        MessageTemplate("\(kind.rawValue)_reset", values: ["issuer", "firstName", "link", "minutes"], optional: ["firstName"])
    }
    /// The notice that a reset of the password or PIN completed.
    package static func resetNotice(_ kind: CredentialKind) -> MessageTemplate {
        MessageTemplate("\(kind.rawValue)_reset_notice", values: ["issuer"])
    }
    /// The one-time code of a phone verification (SMS).
    package static let otp = MessageTemplate("otp", .sms, values: ["issuer", "code", "minutes"])

    /// Every message Latchkey sends.
    package static let all: [MessageTemplate] = [emailVerification, emailChangeVerification, emailChangeNotice, profileChangeConfirmation,
                                                 securityNotice]
        + CredentialKind.allCases.flatMap { [reset($0), resetNotice($0)] } + [otp]

    /// The sample of each value that `config check` and the start render every template with.
    static let samples: [String: String] = [
        "issuer": "Example Wallet", "firstName": "Alex", "link": "https://wallet.example.com/verify-email?token=SAMPLE",
        "hours": "24", "days": "7", "minutes": "15", "newEmail": "new@example.com", "fields": "first name, last name",
        "code": "123456", "remaining": "9",
    ]
}

/// What a security notice reports as changed: the template's flag of that name words it in each
/// language.
package enum SecurityChange: String, Sendable, CaseIterable {
    case password, passcode, securityQuestions, deviceToken, linkedDevices
    /// An authenticator app was added or removed; the recovery codes were made anew or removed.
    case authenticatorApp, recoveryCodes
    /// A recovery code was used to link a new phone (the notice worded on its own, with `remaining`).
    case recoveryCodeUsed
    /// A passkey was added or removed.
    case passkeys

    /// The change as the message's `data` names it to a channel (the webhook's payload), which
    /// stays the same in every language.
    package var dataName: String {
        switch self {
        case .password: "password"
        case .passcode: "PIN"
        case .securityQuestions: "security questions"
        case .deviceToken: "device sign-in token"
        case .linkedDevices: "list of linked devices"
        case .authenticatorApp: "authenticator app"
        case .recoveryCodes: "recovery codes"
        case .recoveryCodeUsed: "recovery code used"
        case .passkeys: "list of passkeys"
        }
    }
}

/// The lifetimes the messages state.
package enum MessageTemplates {
    /// How long the old address can put an email change back.
    package static let revertLifetime: TimeInterval = 7 * 86_400
    /// How long verification links work.
    package static let verificationLifetime: TimeInterval = 24 * 3600
}
