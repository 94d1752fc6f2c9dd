import ArgumentParser
import Foundation
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

/// `latchkey audit …`: the audit trail of security events.
struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export or purge the audit trail of security events.", subcommands: [Export.self, Purge.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the audit trail as JSON lines (one event a line, in recording order).")
        @OptionGroup var options: ServerOptions
        @Option(help: "Only events at or after this time (ISO 8601, e.g. 2026-11-01T00:00:00Z).") var since: String?
        @Option(name: .shortAndLong, help: "Write to this file (created 0600) instead of standard output.") var output: String?

        func run() async throws {
            let start: Date? = try since.map {
                guard let date = try? Date($0, strategy: .iso8601) else {
                    throw ValidationError("--since: not an ISO 8601 time, e.g. 2026-11-01T00:00:00Z.")
                }
                return date
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            // A file is written page by page to a new 0600 file, then renamed into place.
            let temporary = output.map { $0 + ".partial-\(UInt32.random(in: .min ... .max))" }
            if let temporary { try PrivateFile.create(temporary, contents: Data()) }
            let sink = try temporary.map { try FileHandle(forWritingTo: URL(fileURLWithPath: $0)) } ?? FileHandle.standardOutput
            do {
                try await withOperatorStore(options) { store, configuration in
                    let audit = AuditAdministration(store: store, issuer: configuration.issuer)
                    let count = try await audit.exportEvents(since: start, for: .commandLine) { page in
                        var lines = Data()
                        for event in page {
                            lines.append(try encoder.encode(event))
                            lines.append(0x0A)
                        }
                        try sink.write(contentsOf: lines)
                    }
                    if let output, let temporary {
                        try sink.close()
                        guard rename(temporary, output) == 0 else {
                            throw ValidationError("Cannot write \(output): \(String(cString: strerror(errno))).")
                        }
                        FileHandle.standardError.write(Data("\(count) events written to \(output)\n".utf8))
                    }
                }
            } catch {
                if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
                throw error
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the events older than audit.retentionDays now (the server also does it every hour).")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let days = try options.resolve().audit.retentionDays
            try await withOperatorStore(options) { store, configuration in
                let audit = AuditAdministration(store: store, issuer: configuration.issuer)
                print("\(try await audit.purgeEvents(retentionDays: days)) events deleted (retention \(days) days)")
            }
        }
    }
}

extension AuditEvent {
    /// One line for a terminal: time, what, how it ended, why, device, address, details.
    /// Values a caller wrote (an identifier, a label) have their control characters escaped, so
    /// they cannot forge lines or columns.
    var line: String {
        [occurredAt.formatted(.iso8601), type.rawValue, outcome.rawValue, reason ?? "-", actor.rawValue,
         "device=\(deviceID ?? "-")", "ip=\(clientIP ?? "-")",
         details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")]
            .map(Self.escaped).joined(separator: "\t")
    }

    private static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
    }
}
