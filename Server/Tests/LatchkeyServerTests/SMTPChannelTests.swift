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

/// What the relay says unasked: replies slipped in before TLS by someone in between, or arriving on
/// an idle connection, never answer a later command; the connection is discarded instead.
extension SMTPChannelTests {
    @Test func startTLSUpgradesThePlainConnectionBeforeTheMessage() async throws {
        let relay = try await SMTPTestRelay.start(startTLS: "")
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings(idleSeconds: 0))
        try await channel.deliver(Self.message())
        #expect(Array(relay.transcript[0].prefix(4)) == ["EHLO wallet.example", "STARTTLS", "EHLO wallet.example", "MAIL FROM:<no-reply@wallet.example>"])
        #expect(relay.messages.count == 1)
    }

    @Test func repliesInjectedBeforeTLSNeverAnswerTheCommandsAfterIt() async throws {
        // A man in the middle of the plaintext leg answers, ahead of time, every command the client
        // will send once TLS is up, so that a message the relay refuses would look delivered.
        let relay = try await SMTPTestRelay.start(
            startTLS: "250-relay.test\r\n250 AUTH PLAIN\r\n250 2.1.0 ok\r\n250 2.1.5 ok\r\n354 go ahead\r\n250 2.0.0 queued")
        defer { Task { await relay.stop() } }
        relay.queue("RCPT", "550 5.1.1 Recipient address rejected")
        relay.queue("RCPT", "550 5.1.1 Recipient address rejected")
        let channel = try Self.channel(relay, relay.settings())
        for _ in 1...2 {
            await #expect(throws: (any Error).self, "the message is not reported delivered") {
                try await channel.deliver(Self.message())
            }
        }
        await channel.close()
        #expect(relay.transcript.count == 2, "the connection is never reused")
        #expect(relay.transcript.allSatisfy { !$0.contains("MAIL FROM:<no-reply@wallet.example>") })
        #expect(relay.messages.isEmpty)
    }

    @Test func aReplyOnAnIdleConnectionDiscardsIt() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings())
        try await channel.deliver(Self.message())
        await relay.announce("250 2.0.0 ok")
        try await Task.sleep(for: .milliseconds(200))
        try await channel.deliver(Self.message())
        await channel.close()
        #expect(relay.transcript.count == 2, "the connection that spoke unasked was replaced")
        #expect(relay.transcript[0].last == "DATA" && relay.transcript[1].first == "EHLO wallet.example")
        #expect(relay.messages.count == 2)
    }

    @Test func aRefusedSenderIsTransientWhileARefusedRecipientOrDataIsPermanent() async throws {
        let relay = try await SMTPTestRelay.start()
        defer { Task { await relay.stop() } }
        let channel = try Self.channel(relay, relay.settings())
        // 530/550/553/554 to MAIL FROM are about the sender settings (auth required, relay denied):
        // the message waits for the operator, as with a refused login.
        for refusal in ["530 5.7.0 Authentication required", "553 5.7.1 Sender address rejected: not owned by user"] {
            relay.queue("MAIL", refusal)
            await #expect(throws: DeliveryFailure(.transient, answer: "MAIL FROM: \(refusal)")) {
                try await channel.deliver(Self.message())
            }
        }
        relay.queue("DATA", "554 5.5.1 No valid recipients")
        await #expect(throws: DeliveryFailure(.permanent, answer: "554 5.5.1 No valid recipients")) {
            try await channel.deliver(Self.message())
        }
        relay.queue("END", "554 5.7.1 Message rejected as spam")
        await #expect(throws: DeliveryFailure(.permanent, answer: "554 5.7.1 Message rejected as spam")) {
            try await channel.deliver(Self.message())
        }
        try await channel.deliver(Self.message())
        await channel.close()
        #expect(relay.transcript.count == 1)
    }
}
