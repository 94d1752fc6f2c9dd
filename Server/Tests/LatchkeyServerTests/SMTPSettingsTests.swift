import Foundation
import LatchkeyDomain
import LatchkeyServer
import Logging
import Testing

/// `courier.email.smtp`: what the relay's settings default to, and each refusal by its key.
@Suite struct SMTPSettingsTests {
    static func relay(_ smtp: String) -> String {
        "courier:\n  email:\n    channel: smtp\n    smtp: \(smtp)\n"
    }

    @Test func aRelayNeedsOnlyItsHostAndSender() throws {
        let configuration = try ServerConfiguration.parse(yaml: Self.relay("{ host: smtp.example.com, from: { address: no-reply@wallet.example } }"))
        let smtp = try #require(configuration.courier.email?.smtp)
        #expect(smtp.security == .starttls && smtp.resolvedPort == 587)
        #expect(smtp.auth == .auto && smtp.username == nil && smtp.password == nil)
        #expect(!smtp.insecureSkipVerification && smtp.caFile == nil)
        #expect(smtp.resolvedHeloName == "wallet.example")
        #expect(smtp.idleSeconds == 30 && smtp.connectTimeoutSeconds == 10 && smtp.commandTimeoutSeconds == 30 && smtp.dataTimeoutSeconds == 120)
        let implicit = try ServerConfiguration.parse(yaml: Self.relay("{ host: smtp.example.com, security: tls, from: { address: a@b.example } }"))
        #expect(implicit.courier.email?.smtp?.resolvedPort == 465)
        let login = try ServerConfiguration.parse(yaml: Self.relay(
            "{ host: smtp.example.com, port: 2525, username: mailer, password: { env: SMTP_PASSWORD }, auth: login, heloName: app.wallet.example, from: { address: a@b.example, name: Wallet } }"))
        #expect(login.courier.email?.smtp?.password == SecretReference(env: "SMTP_PASSWORD"))
        #expect(login.courier.email?.smtp?.resolvedPort == 2525 && login.courier.email?.smtp?.resolvedHeloName == "app.wallet.example")
    }

    @Test(arguments: [
        ("{ from: { address: a@b.example } }", "courier.email.smtp.host"),
        ("{ host: \"smtp example\", from: { address: a@b.example } }", "courier.email.smtp.host"),
        ("{ host: smtp.example.com }", "courier.email.smtp.from.address"),
        ("{ host: smtp.example.com, from: { address: \"Wallet <a@b.example>\" } }", "courier.email.smtp.from.address"),
        ("{ host: smtp.example.com, from: { address: a@b.example, name: \"x\\ny\" } }", "courier.email.smtp.from.name"),
        ("{ host: smtp.example.com, port: 0, from: { address: a@b.example } }", "courier.email.smtp.port"),
        ("{ host: smtp.example.com, security: ssl, from: { address: a@b.example } }", "courier.email.smtp.security"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, username: u }", "courier.email.smtp.password"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, password: { env: P } }", "courier.email.smtp.username"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, auth: plain }", "courier.email.smtp.username"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, auth: cram-md5 }", "courier.email.smtp.auth"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, caFile: ca.pem, insecureSkipVerification: true }",
         "courier.email.smtp.insecureSkipVerification"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, idleSeconds: -1 }", "courier.email.smtp.idleSeconds"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, commandTimeoutSeconds: 0 }", "courier.email.smtp.commandTimeoutSeconds"),
        // A huge timeout would overflow the nanoseconds a TimeAmount holds: each is bounded.
        ("{ host: smtp.example.com, from: { address: a@b.example }, connectTimeoutSeconds: 9223372036854775807 }",
         "courier.email.smtp.connectTimeoutSeconds"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, commandTimeoutSeconds: 601 }", "courier.email.smtp.commandTimeoutSeconds"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, dataTimeoutSeconds: 100000000000 }", "courier.email.smtp.dataTimeoutSeconds"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, idleSeconds: 3601 }", "courier.email.smtp.idleSeconds"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, heloName: \"my host\" }", "courier.email.smtp.heloName"),
        ("{ host: smtp.example.com, from: { address: a@b.example }, pasword: { env: P } }", "courier.email.smtp.pasword"),
        ("null", "courier.email.smtp"),
    ])
    func aBadRelaySettingIsRefusedByItsKey(_ smtp: String, key: String) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(yaml: Self.relay(smtp)) }
        do { _ = try ServerConfiguration.parse(yaml: Self.relay(smtp)) } catch let error as ConfigurationError {
            #expect(error.key == key, "\(smtp): \(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aPasswordWrittenInTheFileIsRefusedWithoutQuotingIt() {
        let yaml = Self.relay("{ host: smtp.example.com, from: { address: a@b.example }, username: u, password: hunter2-secret }")
        do {
            _ = try ServerConfiguration.parse(yaml: yaml)
            Issue.record("a plain password was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "courier.email.smtp.password")
            #expect(!error.description.contains("hunter2"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aRelayIsForEmailOnly() {
        #expect(throws: ConfigurationError(key: "courier.sms.channel", message: "A mail relay carries email only: use http, webhook, file or log.")) {
            try ServerConfiguration.parse(yaml: "courier:\n  sms: { channel: smtp }\n")
        }
    }

    /// The channel is built at start: a password that cannot be read, or a CA file without a
    /// certificate, stops the start naming the setting.
    @Test func theStartStopsWhenTheRelaysSecretOrCAFileCannotBeRead() throws {
        let missing = try ServerConfiguration.parse(yaml: Self.relay(
            "{ host: smtp.example.com, from: { address: a@b.example }, username: u, password: { env: LATCHKEY_TEST_UNSET_SMTP_PASSWORD } }"))
        #expect(throws: ConfigurationError(key: "courier.email.smtp.password.env",
                                           message: "The environment variable LATCHKEY_TEST_UNSET_SMTP_PASSWORD is unset or empty.")) {
            try makeChannel(missing.courier, logger: Logger(label: "test"))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notPEM = directory.appendingPathComponent("ca.pem").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        let badCA = try ServerConfiguration.parse(yaml: Self.relay("{ host: smtp.example.com, from: { address: a@b.example }, caFile: \(notPEM) }"))
        do {
            _ = try makeChannel(badCA.courier, logger: Logger(label: "test"))
            Issue.record("a CA file without a certificate was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "courier.email.smtp.caFile")
        }
        let passwordFile = directory.appendingPathComponent("password").path
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let good = try ServerConfiguration.parse(yaml: Self.relay(
            "{ host: smtp.example.com, from: { address: a@b.example }, username: u, password: { file: \(passwordFile) } }"))
        #expect(try makeChannel(good.courier, logger: Logger(label: "test")) is ChannelRouter)
    }
}
