import Foundation
import NIOCore
import NIOSSL

/// What a session with the relay needs, resolved from `SMTPSettings` at start (the password read,
/// the TLS context built).
struct SMTPSessionSettings: Sendable {
    struct Credentials: Sendable {
        var username: String
        var password: String
    }

    var endpoint: SMTPConnection.Endpoint
    var security: SMTPSettings.Security
    var tls: NIOSSLContext
    var heloName: String
    var credentials: Credentials?
    var auth: SMTPSettings.Authentication
}

/// The session (RFC 5321): greeting, EHLO, STARTTLS (RFC 3207) and EHLO again, AUTH (RFC 4954,
/// PLAIN RFC 4616 or LOGIN), then per message MAIL, RCPT, DATA, and RSET between messages.
///
/// A refusal while the session opens (greeting, EHLO, STARTTLS, AUTH) says nothing about the
/// message, so it is transient even when the relay answers 5xx: the message waits for the
/// operator to fix the relay's settings (as Postfix's `smtp_sasl_auth_soft_bounce` does). A
/// refusal of the sender (MAIL FROM) is too: it is about the settings, not the message. A refusal
/// of the message itself (RCPT, DATA, its end) is permanent on 5xx and transient on 4xx.
extension SMTPConnection {
    /// Connects and opens a session ready for `MAIL`.
    /// - Throws: `DeliveryFailure(.transient)` with the relay's refusal, `SMTPError`, or the
    ///   connection's or TLS's error. The connection is closed on any of them.
    static func open(_ settings: SMTPSessionSettings) async throws -> SMTPConnection {
        let connection = try await connect(to: settings.endpoint, tls: settings.security == .tls ? settings.tls : nil)
        do {
            try setup(await connection.reply(step: "the greeting"), 220, "greeting")
            var hello = try await connection.hello(settings.heloName)
            if settings.security == .starttls {
                guard hello.extensions["STARTTLS"] != nil else {
                    throw SMTPError.missingCapability("the relay does not offer STARTTLS, and no mail is sent in the clear")
                }
                try setup(await connection.command("STARTTLS"), 220, "STARTTLS")
                try await connection.startTLS(settings.tls)
                hello = try await connection.hello(settings.heloName)
            }
            if let credentials = settings.credentials {
                try await connection.authenticate(credentials, method: settings.auth, offered: hello.extensions["AUTH"])
            }
            return connection
        } catch {
            await connection.close()
            throw error
        }
    }

    private func hello(_ name: String) async throws -> SMTPReply {
        let reply = try await command("EHLO \(name)")
        try Self.setup(reply, 250, "EHLO")
        return reply
    }

    private func authenticate(_ credentials: SMTPSessionSettings.Credentials, method: SMTPSettings.Authentication,
                              offered: [String]?) async throws {
        guard let offered else { throw SMTPError.missingCapability("the relay offers no AUTH, and a username is set") }
        let mechanism: SMTPSettings.Authentication
        switch method {
        case .auto:
            guard let chosen = [SMTPSettings.Authentication.plain, .login].first(where: { offered.contains($0.rawValue.uppercased()) }) else {
                throw SMTPError.missingCapability("the relay offers neither AUTH PLAIN nor AUTH LOGIN")
            }
            mechanism = chosen
        default:
            guard offered.contains(method.rawValue.uppercased()) else {
                throw SMTPError.missingCapability("the relay does not offer AUTH \(method.rawValue.uppercased())")
            }
            mechanism = method
        }
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        // Every line below holds the credentials: errors name the step only ("AUTH").
        if mechanism == .plain {
            try Self.setup(await command("AUTH PLAIN " + base64("\0\(credentials.username)\0\(credentials.password)"), step: "AUTH"), 235, "AUTH")
        } else {
            try Self.setup(await command("AUTH LOGIN", step: "AUTH"), 334, "AUTH")
            try Self.setup(await command(base64(credentials.username), step: "AUTH"), 334, "AUTH")
            try Self.setup(await command(base64(credentials.password), step: "AUTH"), 235, "AUTH")
        }
    }

    /// Sends one message: envelope, then its data (already dot-stuffed, ending in `.`).
    /// - Throws: `DeliveryFailure`, permanent for the relay's 5xx and transient for its 4xx; or
    ///   why the connection failed.
    func transmit(from sender: String, to recipient: String, data: String) async throws {
        // A refused sender (auth required, relay denied, sender not allowed) is about the relay's
        // settings, not this message: transient, like a refused login.
        try Self.setup(await command("MAIL FROM:<\(sender)>"), 250, "MAIL FROM")
        try Self.message(await command("RCPT TO:<\(recipient)>"), 250, 251)
        try Self.message(await command("DATA"), 354)
        // The data's write and the relay's answer to its end share one dataTimeout.
        let deadline = NIODeadline.now() + endpoint.dataTimeout
        try await send(data, step: "the message's data", timeout: endpoint.dataTimeout)
        let left = max(deadline - .now(), .milliseconds(1))
        try Self.message(await reply(step: "the end of the data", timeout: left), 250)
    }

    /// Clears the envelope for the next message on this connection.
    func reset() async throws {
        try Self.setup(await command("RSET"), 250, "RSET")
    }

    /// Says goodbye (not waiting long for the answer) and closes.
    func quit() async {
        if isActive {
            _ = try? await command("QUIT", timeout: .seconds(2))
        }
        await close()
    }

    /// A reply while the session opens: anything but `expected` is a transient failure.
    private static func setup(_ reply: SMTPReply, _ expected: Int, _ step: String) throws {
        guard reply.code == expected else { throw DeliveryFailure(.transient, answer: "\(step): \(reply)") }
    }

    /// A reply about the message: 5xx is final, anything else unexpected is transient.
    private static func message(_ reply: SMTPReply, _ expected: Int...) throws {
        guard !expected.contains(reply.code) else { return }
        throw DeliveryFailure(reply.isPermanentFailure ? .permanent : .transient, answer: reply.description)
    }
}
