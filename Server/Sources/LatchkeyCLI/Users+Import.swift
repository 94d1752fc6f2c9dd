import ArgumentParser
import Foundation
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer

extension Users {
    /// `latchkey users import FILE`: an issuer's existing users, from JSON Lines.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Import users from JSON Lines (docs/import.md).", discussion: """
            One user a line: {"email", "firstName", "lastName", "emailVerified", "phone"?, "externalId"?, \
            "additionalCustomerInformation"?, "password": {"hash"|"value"}, "passcode": {"hash"|"value"}?, \
            "mfaAnswers": [{"question", "hash"|"value"}]?}. Hashes from Django (pbkdf2_sha256, scrypt), PHC strings \
            ($pbkdf2-sha256$, $pbkdf2-sha512$, $scrypt$) and Latchkey's own are kept and replaced at the next login. \
            Bad lines are reported by number and skipped; the exit status is 1 if any was. Users whose email exists are \
            skipped unless --update.
            """)
        @OptionGroup var options: ServerOptions
        @Argument(help: "The file; - reads standard input.") var file: String
        @Flag(help: "Overwrite users whose email exists (their sessions end) instead of skipping them.") var update = false

        func run() async throws {
            let configuration = try options.resolve()
            guard let input = file == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: file) else {
                throw ValidationError("Cannot read \(file).")
            }
            let logger = makeLogger(level: .error)
            let progress = Progress(enabled: isatty(STDERR_FILENO) == 1)
            let report = try await StoreFactory.withStore(configuration.database, logger: logger, timeout: .seconds(300)) { store in
                let importer = UserImporter(store: store, issuer: configuration.issuer,
                                            templates: try MessageCatalog.load(overrides: configuration.courier.templates, defaultLanguage: configuration.languages.default)) {
                    // Values need the pepper the servers use: on PostgreSQL it must exist; on
                    // SQLite it is created as the first `serve` would.
                    let pepper = try Pepper.load(settings: configuration.secrets,
                                                 generate: !(try DatabaseURL(configuration.database)).engine.isShared,
                                                 logger: logger)
                    let previous = try Pepper.previous(settings: configuration.secrets)
                    try await ClusterSecrets.check(store: store, pepper: pepper, previousPeppers: previous, now: Date(), logger: logger)
                    var hashing = configuration.hashing
                    hashing.maxQueueMilliseconds = .max // the import waits for its hashes: nobody else is queued
                    return SecretHasher(settings: hashing, pepper: pepper, previousPeppers: previous)
                }
                // As the admin API imports: recorded before the first batch and, with the counts, at the end.
                let imports = ImportAdministration(importer: importer, trail: OperatorTrail(store: store, issuer: configuration.issuer))
                return try await imports.importUsers(lines: LineReader(input), update: update, for: .commandLine,
                                                     failure: { progress.line("\($0)") }, progress: { progress.show($0) })
            }
            progress.finish()
            print("\(report.lines) lines: \(report.created) created, \(report.updated) updated, "
                  + "\(report.skipped) skipped (email exists), \(report.failed) failed")
            if report.failed > 0 { throw ExitCode(1) }
        }
    }
}

/// The lines of a file, read a megabyte at a time (a million users are ~300 MB).
struct LineReader: Sequence, IteratorProtocol {
    let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> Substring? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { position = newline + 1 }
                return Substring(String(decoding: buffer[position..<newline], as: UTF8.self))
            }
            if ended {
                guard position < buffer.count else { return nil }
                defer { position = buffer.count }
                return Substring(String(decoding: buffer[position...], as: UTF8.self))
            }
            buffer.removeFirst(position)
            position = 0
            let chunk = (try? handle.read(upToCount: 1 << 20)) ?? nil
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { ended = true }
        }
    }
}

/// Progress on a terminal (standard error), redrawn at most four times a second; bad lines above it.
final class Progress: @unchecked Sendable {
    let enabled: Bool
    private let started = Date()
    private var drawn = Date.distantPast
    private var shown = false

    init(enabled: Bool) { self.enabled = enabled }

    func line(_ text: String) {
        FileHandle.standardError.write(Data(((shown ? "\r\u{1B}[K" : "") + text + "\n").utf8))
        shown = false
    }

    func show(_ report: UserImporter.Report) {
        guard enabled, Date().timeIntervalSince(drawn) >= 0.25 else { return }
        drawn = Date()
        let rate = Double(report.lines) / max(0.001, drawn.timeIntervalSince(started))
        FileHandle.standardError.write(Data(("\r\u{1B}[K\(report.lines) lines, \(report.created) created, \(report.updated) updated, "
            + "\(report.skipped) skipped, \(report.failed) failed (\(Int(rate)) lines/s)").utf8))
        shown = true
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
