import ArgumentParser
import Foundation
import LatchkeyDomain
import Logging

/// Email through a relay: messages per second the smtp channel hands to a relay over STARTTLS,
/// one after another as the courier sends them, with a new connection per message
/// (`idleSeconds: 0`) and with the connection reused (RSET between messages). The two are run
/// in alternation, `rounds` times each, and the median of each is kept.
enum SMTPBenchmark {
    static func run(relay: String, caFile: String?, messages: Int, rounds: Int, logger: Logger) async throws {
        let parts = relay.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]) else { throw ValidationError("--smtp takes HOST:PORT") }
        var settings = SMTPSettings()
        settings.host = String(parts[0])
        settings.port = port
        settings.caFile = caFile
        settings.insecureSkipVerification = caFile == nil
        settings.from = .init(address: "bench@wallet.example", name: "Latchkey Bench")
        try settings.validate(key: "smtp")
        var perConnection = settings, reused = settings
        perConnection.idleSeconds = 0
        reused.idleSeconds = 60
        let message = OutgoingMessage(channel: .email, to: "customer@example.com", template: "email_verification",
                                      subject: "Bestätigen Sie Ihre E-Mail-Adresse",
                                      body: "Hallo,\n\nbitte öffnen Sie https://wallet.example/verify?token=\(String(repeating: "x", count: 43))\n",
                                      html: "<p>Hallo,</p><p><a href=\"https://wallet.example/verify?token=x\">Bestätigen</a></p>",
                                      language: "de", data: [:])
        print("smtp: \(messages) messages a round, one after another, over STARTTLS to \(relay); \(rounds) rounds alternating")
        var rates: [String: [Double]] = [:]
        for round in 1...rounds {
            for (name, variant) in [("a connection per message", perConnection), ("connection reused", reused)] {
                let channel = try SMTPChannel(settings: variant, password: nil, key: "smtp", logger: logger)
                let start = ContinuousClock.now
                for _ in 0..<messages { try await channel.deliver(message) }
                let elapsed = ContinuousClock.now - start
                await channel.close()
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let rate = Double(messages) / seconds
                rates[name, default: []].append(rate)
                print(String(format: "  round %d, %@: %.1f messages/s", round, name, rate))
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let single = median(rates["a connection per message"] ?? [0]), pooled = median(rates["connection reused"] ?? [0])
        print(String(format: "smtp median: a connection per message %.1f messages/s, connection reused %.1f messages/s (%.1f×)",
                     single, pooled, pooled / max(single, 0.001)))
    }
}
