import Crypto
import CryptoExtras
import Foundation
import NIOCore
import NIOPosix

/// Hashes passwords, passcodes and MFA answers with scrypt, a per-record salt and the server's
/// pepper, off the event loop. The algorithm, its parameters and the pepper's id are recorded in
/// each hash (`scrypt$logN$r$p$salt$hash$k<id>`), so parameters can be raised and the pepper
/// rotated later while old hashes still verify (and are hashed again at their next check).
public struct SecretHasher: Sendable {
    public let settings: HashingSettings
    /// The current pepper first, then the previous ones (a rotation), each with its id.
    private let peppers: [(id: String, key: SymmetricKey)]
    private let threadPool: NIOThreadPool
    /// Every hash passes it (`HashGate`).
    public let gate: HashGate
    /// The admission this hasher's hashes draw on (`admitted(_:for:_:)`); nil outside one (a
    /// command, the calibration), where each hash counts on its own.
    private var ticket: HashGate.Ticket?

    public init(settings: HashingSettings, pepper: SymmetricKey, previousPeppers: [SymmetricKey] = [],
                threadPool: NIOThreadPool = SecretHasher.pool) {
        self.settings = settings
        self.peppers = ([pepper] + previousPeppers).map { ("k" + ClusterSecrets.fingerprint(pepper: $0).prefix(8), $0) }
        self.threadPool = threadPool
        self.gate = HashGate(workers: Self.threads, maxQueueMilliseconds: settings.maxQueueMilliseconds)
    }

    /// The cipher of the outbox's messages, from the same peppers (an import seals its notices).
    public var outboxCipher: OutboxCipher {
        OutboxCipher(pepper: peppers[0].key, previousPeppers: peppers.dropFirst().map(\.key))
    }

    /// The cipher of stored `pciEncryptionRequired` values, from the same peppers.
    public var profileFieldCipher: ProfileFieldCipher {
        ProfileFieldCipher(pepper: peppers[0].key, previousPeppers: peppers.dropFirst().map(\.key))
    }

    /// One hashing thread per core.
    package static let threads = System.coreCount

    /// The hashing threads: a pool of their own, because SQLite runs its calls on NIO's shared
    /// pool, and a login's queries must not wait behind queued hashes.
    public static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }()

    /// Runs `body` once the gate admits `units` hashes for `caller` (the most the operation can
    /// run), with a hasher whose hashes draw on that admission and are skipped when the caller's
    /// client has left; refuses at once, before anything moves, when it does not.
    ///
    /// - Throws: `DomainError(.overloaded)` (503, `retryAfter`), or what `body` throws.
    public func admitted<T>(_ units: Int, for caller: Caller, _ body: (SecretHasher) async throws -> T) async throws -> T {
        try await gate.admitted(units, connection: caller.connection, reserved: caller.admission) { ticket in
            var admitted = self
            admitted.ticket = ticket
            return try await body(admitted)
        }
    }

    /// Runs one hash off the event loop, through the gate.
    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await gate.run(work, ticket: ticket) { [threadPool] job in try await threadPool.runIfActive(job) }
    }

    /// A new hash of `secret` at the configured parameters.
    public func hash(_ secret: String) async throws -> String {
        let salt = SecureRandom.bytes(16)
        let (logN, r, p) = (settings.logN, settings.r, settings.p)
        let current = peppers[0]
        let derived = try await run { try self.derive(secret, salt: salt, logN: logN, r: r, p: p, pepper: current.key) }
        return ["scrypt", String(logN), String(r), String(p), Data(salt).base64EncodedString(),
                derived.base64EncodedString(), current.id].joined(separator: "$")
    }

    /// Whether `secret` matches `encoded`, compared in constant time. A malformed hash never matches.
    /// A hash another system made (`ImportedHash`) is checked as that system would.
    public func verify(_ secret: String, against encoded: String) async throws -> Bool {
        guard let (logN, r, p, salt, expected, parts) = Self.own(encoded) else {
            guard let imported = ImportedHash.parse(encoded) else { return false }
            return try await run { try imported.matches(secret) }
        }
        // A hash names its pepper; one from before pepper ids is tried with each (current first).
        let candidates = parts.count == 7 ? peppers.filter { $0.id == parts[6] }.map(\.key) : peppers.map(\.key)
        for pepper in candidates {
            let derived = try await run { try self.derive(secret, salt: Array(salt), logN: logN, r: r, p: p, pepper: pepper) }
            if ConstantTime.equal(derived, expected) { return true }
        }
        return false
    }

    /// The parts of a hash in Latchkey's own format, or nil.
    private static func own(_ encoded: String) -> (logN: Int, r: Int, p: Int, salt: Data, expected: Data, parts: [String])? {
        guard encoded.hasPrefix("scrypt$") else { return nil }
        let parts = encoded.split(separator: "$").map(String.init)
        guard parts.count == 6 || parts.count == 7, parts[0] == "scrypt", let logN = Int(parts[1]), let r = Int(parts[2]),
              let p = Int(parts[3]), let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
              (1...24).contains(logN), (1...32).contains(r), (1...16).contains(p)
        else { return nil }
        return (logN, r, p, salt, expected, parts)
    }

    /// Whether `encoded` is a hash this server can check: its own format or one `ImportedHash` reads.
    public static func recognizes(_ encoded: String) -> Bool {
        own(encoded) != nil || ImportedHash.parse(encoded) != nil
    }

    /// Spends the same work as a verification, for unknown users.
    public func burn(_ secret: String) async throws {
        _ = try await hash(secret)
    }

    /// Whether a hash was made with weaker parameters than the configured ones, or with another
    /// pepper than the current one.
    public func needsUpgrade(_ encoded: String) -> Bool {
        encoded != "" && !(encoded.hasPrefix("scrypt$\(settings.logN)$\(settings.r)$\(settings.p)$")
                           && encoded.hasSuffix("$" + peppers[0].id))
    }

    private func derive(_ secret: String, salt: [UInt8], logN: Int, r: Int, p: Int, pepper: SymmetricKey) throws -> Data {
        let peppered = HMAC<SHA256>.authenticationCode(for: Data(secret.utf8), using: pepper)
        let key = try KDF.Scrypt.deriveKey(from: Data(peppered), salt: salt, outputByteCount: 32,
                                           rounds: 1 << logN, blockSize: r, parallelism: p,
                                           maxMemory: 256 * 1024 * 1024)
        return key.withUnsafeBytes { Data($0) }
    }
}

/// Constant-time comparison of byte strings.
public enum ConstantTime {
    /// Whether `a` and `b` are equal, in time that depends only on their lengths.
    public static func equal<A: DataProtocol, B: DataProtocol>(_ a: A, _ b: B) -> Bool {
        let left = Array(a), right = Array(b)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

extension SecretHasher {
    /// The hashes of MFA answers, each normalized as the issuer's MFA settings say, in parallel.
    package func hashAnswers(_ answers: [String: String], mfa: MFASettings) async throws -> [MFAAnswerRecord] {
        let records = try await withThrowingTaskGroup(of: MFAAnswerRecord.self) { group in
            for (question, answer) in answers {
                let normalized = mfa.normalize(answer)
                group.addTask { MFAAnswerRecord(question: question, answerHash: try await self.hash(normalized)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        return records.sorted { $0.question < $1.question }
    }
}
