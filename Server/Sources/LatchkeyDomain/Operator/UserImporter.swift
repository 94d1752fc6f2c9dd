import Foundation
import LatchkeyCore
import NIOCore

/// Brings an issuer's existing users in (`latchkey users import`): reads JSON Lines (`ImportLine`),
/// checks each line, hashes the secrets given as values and writes batches of users, each batch in
/// one transaction. A bad line is reported with its number and skipped; nothing of it is written.
/// Knows no terminal: lines come in, failures and progress go out through closures.
public struct UserImporter: Sendable {
    public typealias Store = ImportStore & AuditStore
    package let store: any Store
    package let issuer: IssuerSettings
    /// The templates of the security notices an update sends.
    package let templates: MessageCatalog
    /// Made on the first secret given as a value: an import of hashes needs no pepper.
    package let hasher: @Sendable () async throws -> SecretHasher
    package let now: @Sendable () -> Date
    /// Users per transaction.
    public var batchSize = 2000

    public init(store: any Store, issuer: IssuerSettings, templates: MessageCatalog = .builtIn,
                hasher: @escaping @Sendable () async throws -> SecretHasher, now: @escaping @Sendable () -> Date = Date.init) {
        self.templates = templates
        self.store = store
        self.issuer = issuer
        self.hasher = hasher
        self.now = now
    }

    /// A line that was not imported, and why (the field at fault when one is).
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var field: String?
        public var message: String
        public var description: String { "line \(line): " + (field.map { "\($0): " } ?? "") + message }
    }

    /// What an import did so far.
    public struct Report: Sendable, Equatable {
        public var lines = 0
        public var created = 0
        public var updated = 0
        /// Addresses the issuer already had (without `update`).
        public var skipped = 0
        public var failed = 0

        public init(lines: Int = 0, created: Int = 0, updated: Int = 0, skipped: Int = 0, failed: Int = 0) {
            (self.lines, self.created, self.updated, self.skipped, self.failed) = (lines, created, updated, skipped, failed)
        }
    }

    /// Imports every line of `lines` (blank lines are ignored); with `update`, a user whose address
    /// exists is overwritten instead of skipped. Calls `failure` for each bad line and `progress`
    /// after each batch. Throws what the database throws (the batches before stay written).
    public func run(lines: some Sequence<Substring>, update: Bool, failure: (Failure) -> Void,
                    progress: (Report) -> Void) async throws -> Report {
        try await run(lines: SyncLines(base: lines), update: update, failure: failure, progress: progress)
    }

    /// `run` of lines that arrive as they are read (the admin API's streamed body). Throws what
    /// `lines` throws too (the batches before stay written).
    public func run(lines: some AsyncSequence<Substring, any Error>, update: Bool, failure: (Failure) -> Void,
                    progress: (Report) -> Void) async throws -> Report {
        var report = Report()
        var seen: [String: Int] = [:]
        var hasher: SecretHasher?
        var iterator = lines.makeAsyncIterator()
        // A batch is written while the next is read and checked: the two take about as long.
        var writing: Task<[ImportOutcome], any Error>?
        do {
            var ended = false
            while !ended {
                var chunk: [(line: Int, text: Substring)] = []
                while chunk.count < batchSize {
                    guard let text = try await iterator.next() else { ended = true; break }
                    report.lines += 1
                    if !text.allSatisfy(\.isWhitespace) { chunk.append((report.lines, text)) }
                }
                let parsed = try await Self.inParallel(chunk) { [issuer] entry in
                    Result { () throws(DomainError) in try ImportLine.parse(entry.text, issuer: issuer) }
                }
                var accepted: [(line: Int, content: ImportLine)] = []
                for (entry, result) in parsed {
                    do {
                        let content = try result.get()
                        let email = EmailAddress.normalized(content.email)
                        if let earlier = seen[email] { throw DomainError.invalidField("email", "Also on line \(earlier); the first is imported.") }
                        seen[email] = entry.line
                        accepted.append((entry.line, content))
                    } catch let error as DomainError {
                        report.failed += 1
                        failure(Failure(line: entry.line, field: error.field, message: error.message))
                    }
                }
                // Values to hash, fields the issuer encrypts (the pepper's cipher) or an update's
                // security notices (sealed with the pepper's outbox cipher) need the hasher.
                let encrypts = issuer.enrollmentRules.metadata.additionalCustomerInformation.contains { $0.pciEncryptionRequired == true }
                if hasher == nil, update || encrypts || accepted.contains(where: { $0.content.hasValues }) { hasher = try await self.hasher() }
                let time = now()
                let users = try await Self.inParallel(accepted) { [hasher] entry in
                    try await user(from: entry.content, hasher: hasher, at: time)
                }.map(\.1)
                if let pending = writing {
                    writing = nil
                    report.count(try await pending.value)
                    progress(report)
                }
                guard !users.isEmpty else { continue }
                let notices = Self.notices(cipher: hasher?.outboxCipher, issuer: issuer, templates: templates, at: time)
                writing = Task { [store, issuer] in
                    try await AuditTrail.run(actor: .operator, store: store) { trail in
                        try await store.recording(into: trail).importUsers(users, update: update, keepPasswords: max(0, issuer.passwordHistory - 1),
                                                                           notices: notices, now: time)
                    }
                }
            }
            if let pending = writing {
                writing = nil
                report.count(try await pending.value)
            }
        } catch {
            // The batch being written finishes (or fails) before the error is told.
            _ = try? await writing?.value
            throw error
        }
        progress(report)
        return report
    }

    /// The security notice of each credential an update replaced — the one a change through the
    /// API sends (`OutboxWriter.securityNotice`), saying it was an import — sealed for the outbox.
    /// Only an update replaces credentials, and `run` makes the hasher (whose peppers seal) for
    /// every update.
    /// The imported wallet's recorded languages choose the notice's.
    private static func notices(cipher: OutboxCipher?, issuer: IssuerSettings, templates: MessageCatalog, at time: Date) -> ImportNotices {
        { user, replaced in
            guard let cipher else { preconditionFailure("an update without the hasher") }
            return try replaced.map { credential in
                try cipher.seal(templates.securityNotice(credential.securityChange, to: user.email, languages: user.languagePreference,
                                                         issuer: issuer, byImport: true),
                                now: time)
            }
        }
    }

    /// `transform` of each element, in slices run in parallel (one a core); in order.
    private static func inParallel<Element: Sendable, T: Sendable>(
        _ elements: [Element], _ transform: @escaping @Sendable (Element) async throws -> T
    ) async throws -> [(Element, T)] {
        let size = max(1, (elements.count + System.coreCount - 1) / System.coreCount)
        let slices = stride(from: 0, to: elements.count, by: size).map { Array(elements[$0..<min($0 + size, elements.count)]) }
        return try await withThrowingTaskGroup(of: (Int, [(Element, T)]).self) { group in
            for (index, slice) in slices.enumerated() {
                group.addTask {
                    var results: [(Element, T)] = []
                    for element in slice { results.append((element, try await transform(element))) }
                    return (index, results)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// The record of a checked line, its values hashed as registration hashes them.
    private func user(from line: ImportLine, hasher: SecretHasher?, at time: Date) async throws -> ImportedUser {
        func stored(_ secret: ImportLine.ImportedSecret, normalize: (String) -> String = { $0 }) async throws -> String {
            if let hash = secret.hash { return hash }
            // `run` makes the hasher for any batch with a value.
            guard let hasher, let value = secret.value else { preconditionFailure("a value without a hasher") }
            return try await hasher.hash(normalize(value))
        }
        let email = line.email.trimmingCharacters(in: .whitespaces)
        var answers: [MFAAnswerRecord]?
        if let given = line.mfaAnswers {
            answers = []
            for answer in given {
                let hash = try await stored(.init(hash: answer.hash, value: answer.value), normalize: issuer.mfa.normalize)
                answers?.append(MFAAnswerRecord(question: answer.question, answerHash: hash))
            }
        }
        // Most lines have no additional information: no encoder for them.
        let metadata = issuer.enrollmentRules.metadata
        // The line as given (an update merges it into the stored user; defaults are registration's).
        let document = try line.additionalCustomerInformation.map { info in
            let stored = EnrollmentService.StoredProfile(additionalCustomerInformation: info)
            guard let cipher = hasher?.profileFieldCipher else { return String(decoding: try JSONEncoder().encode(stored), as: UTF8.self) }
            return try stored.encoded(sealing: metadata, with: cipher)
        } ?? "{}"
        let record = UserRecord(
            id: SecureRandom.orderedIdentifier(at: time), issuer: issuer.id, email: email, emailNormalized: EmailAddress.normalized(email),
            firstName: line.firstName, lastName: line.lastName, phone: line.phone, externalId: line.externalId,
            passwordHash: try await stored(line.password), passcodeHash: try await line.passcode.asyncMap { try await stored($0) },
            emailVerified: line.emailVerified, profileJSON: document,
            createdAt: time, updatedAt: time, appInstanceVerified: line.emailVerified, passwordUpdatedAt: time)
        return ImportedUser(user: record, answers: answers)
    }
}

extension UserImporter.Report {
    package mutating func count(_ outcomes: [ImportOutcome]) {
        for outcome in outcomes {
            switch outcome {
            case .created: created += 1
            case .updated: updated += 1
            case .skipped: skipped += 1
            }
        }
    }
}

extension ImportLine {
    /// Whether a secret of the line comes as a value, to be hashed here.
    package var hasValues: Bool {
        password.value != nil || passcode?.value != nil || (mfaAnswers ?? []).contains { $0.value != nil }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

/// A sequence of lines read as an asynchronous one (the command line's file).
package struct SyncLines<Base: Sequence<Substring>>: AsyncSequence, AsyncIteratorProtocol {
    package typealias Element = Substring
    package typealias Failure = any Error
    var iterator: Base.Iterator
    package init(base: Base) { iterator = base.makeIterator() }
    package func makeAsyncIterator() -> Self { self }
    package mutating func next() async throws -> Substring? { iterator.next() }
}
