import Foundation
import LatchkeyDomain
import Logging
import Testing

/// The smtp channel's session against a scripted TLS relay (`SMTPTestRelay`): what it says, how it
/// reuses a connection, and how the relay's refusals become permanent or transient failures. The
/// real relay (aiosmtpd: STARTTLS, certificates, AUTH) is CI's `smtp` stage.
@Suite struct SMTPChannelTests {
    static func message(to: String = "ada@example.com", body: String = "Hello,\nopen the link.") -> OutgoingMessage {
        OutgoingMessage(channel: .email, to: to, template: "email_verification", subject: "Verify", body: body,
                        html: "<p>Hello</p>", data: [:])
    }

    static func channel(_ relay: SMTPTestRelay, _ settings: SMTPSettings, password: String? = nil) throws -> SMTPChannel {
        try SMTPChannel(settings: settings, password: password, key: "courier.email.smtp", logger: Logger(label: "test"))
    }

    @Test func messagesShareOneConnectionWithRSETBetweenAndArriveAsWritten() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings())
        try await channel.deliver(Self.message(body: ".starts with a dot\n..two\n."))
        try await channel.deliver(Self.message(to: "bob@example.com"))
        await channel.close()
        #expect(relay.transcript.count == 1, "one connection for both messages")
        #expect(relay.transcript.first == [
            "EHLO wallet.example", "MAIL FROM:<no-reply@wallet.example>", "RCPT TO:<ada@example.com>", "DATA",
            "RSET", "MAIL FROM:<no-reply@wallet.example>", "RCPT TO:<bob@example.com>", "DATA", "QUIT",
        ])
        let first = try #require(relay.messages.first)
        // The relay undoes the dot-stuffing: the lines arrive as the text has them, quoted-printable.
        #expect(first.contains("\r\n\r\n.starts with a dot\r\n..two\r\n.\r\n--"))
        #expect(first.contains("To: ada@example.com\r\n"))
    }

    @Test func withoutReuseEachMessageHasItsOwnConnectionEndedWithQUIT() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings(idleSeconds: 0))
        try await channel.deliver(Self.message())
        try await channel.deliver(Self.message())
        #expect(relay.transcript.count == 2)
        #expect(relay.transcript.allSatisfy { $0.first == "EHLO wallet.example" && $0.last == "QUIT" && !$0.contains("RSET") })
    }

    @Test func aRefusalOfTheMessageIsPermanentOn5xxAndTransientOn4xxAndTheConnectionGoesOn() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings())
        relay.queue("RCPT", "550 5.1.1 <nobody@example.com>: Recipient address rejected")
        await #expect(throws: DeliveryFailure(.permanent, answer: "550 5.1.1 <nobody@example.com>: Recipient address rejected")) {
            try await channel.deliver(Self.message(to: "nobody@example.com"))
        }
        relay.queue("END", "451 4.3.0 Greylisted, try again later")
        await #expect(throws: DeliveryFailure(.transient, answer: "451 4.3.0 Greylisted, try again later")) {
            try await channel.deliver(Self.message())
        }
        try await channel.deliver(Self.message())
        await channel.close()
        #expect(relay.transcript.count == 1, "refusals of a message keep the session")
        #expect(relay.messages.count == 2, "the greylisted message's data and the delivered one's reached the relay")
        #expect(relay.transcript[0].filter { $0 == "RSET" }.count == 2)
    }

    @Test func aConnectionTheRelayDroppedIsReplacedWithoutFailingTheMessage() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings())
        try await channel.deliver(Self.message())
        await relay.dropConnections()
        try await Task.sleep(for: .milliseconds(100))
        try await channel.deliver(Self.message())
        await channel.close()
        #expect(relay.transcript.count == 2 && relay.messages.count == 2)
    }

    @Test func authPlainSendsTheCredentialsAndARefusalNeverQuotesThem() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        var settings = relay.settings(idleSeconds: 0)
        settings.username = "mailer"
        settings.password = SecretReference(env: "UNUSED")
        settings.auth = .plain
        let channel = try Self.channel(relay, settings, password: "s3cret-pass")
        try await channel.deliver(Self.message())
        #expect(relay.transcript[0][1] == "AUTH PLAIN " + Data("\0mailer\0s3cret-pass".utf8).base64EncodedString())
        relay.queue("AUTH", "535 5.7.8 Authentication credentials invalid")
        do {
            try await channel.deliver(Self.message())
            Issue.record("a refused login delivered")
        } catch let failure as DeliveryFailure {
            // A refusal while the session opens is about the settings, not the message: transient.
            #expect(failure == DeliveryFailure(.transient, answer: "AUTH: 535 5.7.8 Authentication credentials invalid"))
            #expect(!"\(failure)".contains("s3cret") && !"\(failure)".contains(Data("\0mailer\0s3cret-pass".utf8).base64EncodedString()))
        }
    }

    @Test func authLoginAnswersTheRelaysTwoQuestions() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        var settings = relay.settings(idleSeconds: 0)
        settings.username = "mailer"
        settings.password = SecretReference(env: "UNUSED")
        settings.auth = .login
        relay.queue("AUTH", "334 VXNlcm5hbWU6")
        relay.queue("BWFPBGVY", "334 UGFzc3dvcmQ6")   // the relay's script is keyed by the line's first word
        relay.queue("CZNJCMV0LXBHC3M=", "235 2.7.0 accepted")
        let channel = try Self.channel(relay, settings, password: "s3cret-pass")
        try await channel.deliver(Self.message())
        #expect(Array(relay.transcript[0][1...3]) == ["AUTH LOGIN", "bWFpbGVy", "czNjcmV0LXBhc3M="])
        #expect(relay.messages.count == 1)
    }
}
