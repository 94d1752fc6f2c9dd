import Foundation

/// How a login was made, as the spec's `collectStatistics` counts it.
public enum LoginStatisticsMethod: String, Sendable, Codable, CaseIterable {
    case password, pin, nonce, deviceToken, mfaAnswer, federated
}

/// How one login ended, as the app saw it.
public enum LoginStatisticsOutcome: Sendable, Equatable {
    case success
    /// The MFA prompt of an unlinked device (the spec's 412): neither a success nor a failure.
    case mfaRequired
    /// A refusal, by the spec's status code (`"401"`, `"423"`), or `"network"` when no answer came.
    case failure(code: String)
}

/// One login method's counts over a period: what the SDK records and sends, what the server adds
/// up per device and day. The same rules bind both sides (`validate`), and they are the ones the
/// contract's schema states: bounds, and the codes a failure is counted under.
public struct LoginStatistics: Sendable, Equatable, Codable {
    public var method: LoginStatisticsMethod
    public var successes: Int
    public var mfaPrompts: Int
    /// Failures by code (`"401"` … or `"network"`).
    public var failures: [String: Int]
    /// The sum of the logins' latencies, in milliseconds (with `attempts`, the mean).
    public var totalLatencyMilliseconds: Int
    public var maximumLatencyMilliseconds: Int

    /// Every login counted: successes, MFA prompts and failures.
    public var attempts: Int { failures.values.reduce(Self.sum(successes, mfaPrompts), Self.sum) }

    public init(method: LoginStatisticsMethod, successes: Int = 0, mfaPrompts: Int = 0, failures: [String: Int] = [:],
                totalLatencyMilliseconds: Int = 0, maximumLatencyMilliseconds: Int = 0) {
        self.method = method
        self.successes = successes
        self.mfaPrompts = mfaPrompts
        self.failures = failures
        self.totalLatencyMilliseconds = totalLatencyMilliseconds
        self.maximumLatencyMilliseconds = maximumLatencyMilliseconds
    }

    /// Counts one login.
    public mutating func record(_ outcome: LoginStatisticsOutcome, latencyMilliseconds: Int) {
        let latency = min(max(latencyMilliseconds, 0), Self.maximumLatency)
        totalLatencyMilliseconds += latency
        maximumLatencyMilliseconds = max(maximumLatencyMilliseconds, latency)
        switch outcome {
        case .success: successes += 1
        case .mfaRequired: mfaPrompts += 1
        case .failure(let code): failures[Self.failureCodes.contains(code) ? code : "other", default: 0] += 1
        }
    }

    /// Adds another period's counts of the same method, each sum held at `sumCap` (a device's
    /// counts can never overflow, however often it reports).
    public mutating func add(_ other: LoginStatistics) {
        successes = Self.sum(successes, other.successes)
        mfaPrompts = Self.sum(mfaPrompts, other.mfaPrompts)
        failures.merge(other.failures, uniquingKeysWith: Self.sum)
        totalLatencyMilliseconds = Self.sum(totalLatencyMilliseconds, other.totalLatencyMilliseconds)
        maximumLatencyMilliseconds = max(maximumLatencyMilliseconds, other.maximumLatencyMilliseconds)
    }

    /// The largest sum kept (10^15): counts and latencies stop there rather than overflow.
    public static let sumCap = 1_000_000_000_000_000

    /// `a + b`, held at `sumCap`.
    public static func sumCapped(_ a: Int, _ b: Int) -> Int { sum(a, b) }

    static func sum(_ a: Int, _ b: Int) -> Int {
        let (a, b) = (min(max(a, 0), sumCap), min(max(b, 0), sumCap))
        return min(a + b, sumCap)
    }

    /// The counts within one entry's bounds (`validate`), so a batch of them is accepted.
    public var clamped: LoginStatistics {
        var entry = self
        entry.successes = min(successes, Self.maximumCount)
        entry.mfaPrompts = min(mfaPrompts, Self.maximumCount)
        entry.failures = failures.mapValues { min($0, Self.maximumCount) }
        entry.totalLatencyMilliseconds = min(totalLatencyMilliseconds, Self.maximumTotalLatency)
        entry.maximumLatencyMilliseconds = min(maximumLatencyMilliseconds, Self.maximumLatency)
        return entry
    }

    /// A failure is counted under one of these; any other code under `other`.
    public static let failureCodes: Set<String> = Set(
        ["400", "401", "403", "404", "410", "412", "415", "416", "418", "419", "421", "423", "429", "500", "503", "511",
         "network", "other"])
    /// One entry's bounds: each count, a login's latency (10 minutes), the latencies' sum.
    public static let maximumCount = 100_000
    public static let maximumLatency = 600_000
    public static let maximumTotalLatency = maximumCount * maximumLatency
    /// Entries in one batch.
    public static let maximumBatch = 12

    /// Checks the counts stay in their bounds and failures are counted under known codes.
    /// - Throws: `LoginStatisticsError` naming the first wrong property (`successes`, `failures`,
    ///   `totalLatencyMilliseconds`, …).
    public func validate() throws(LoginStatisticsError) {
        for (name, value, bound) in [("successes", successes, Self.maximumCount), ("mfaPrompts", mfaPrompts, Self.maximumCount),
                                     ("totalLatencyMilliseconds", totalLatencyMilliseconds, Self.maximumTotalLatency),
                                     ("maximumLatencyMilliseconds", maximumLatencyMilliseconds, Self.maximumLatency)]
        where !(0...bound).contains(value) {
            throw LoginStatisticsError(field: name, message: "\(name) must be 0 to \(bound).")
        }
        if let unknown = failures.keys.sorted().first(where: { !Self.failureCodes.contains($0) }) {
            throw LoginStatisticsError(field: "failures", message: "\"\(unknown.prefix(16))\" is not a status code counted (or network, other).")
        }
        guard failures.values.allSatisfy({ (0...Self.maximumCount).contains($0) }) else {
            throw LoginStatisticsError(field: "failures", message: "failure counts must be 0 to \(Self.maximumCount).")
        }
    }

    /// Checks a batch: its id (1–64 letters, digits or `-`: the server takes a batch once), 1 to
    /// `maximumBatch` entries, each valid.
    /// - Throws: `LoginStatisticsError` naming `batchId`, `statistics` or `statistics[i].<property>`.
    public static func validate(batch: [LoginStatistics], id: String) throws(LoginStatisticsError) {
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ $0 == 0x2D || (0x30...0x39).contains($0)
                                                                     || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw LoginStatisticsError(field: "batchId", message: "batchId has 1 to 64 letters, digits or '-'.")
        }
        guard (1...maximumBatch).contains(batch.count) else {
            throw LoginStatisticsError(field: "statistics", message: "A batch has 1 to \(maximumBatch) entries.")
        }
        for (index, entry) in batch.enumerated() {
            do { try entry.validate() } catch {
                throw LoginStatisticsError(field: "statistics[\(index)].\(error.field)", message: error.text)
            }
        }
    }
}

/// A batch of statistics that breaks a rule: the property and why.
public struct LoginStatisticsError: Error, Sendable, Equatable {
    public let field: String
    public let text: LocalizableText
    /// The reason in English.
    public var message: String { text.english }
    public init(field: String, message: LocalizableText) {
        self.field = field
        self.text = message
    }
}

/// The app context's headers the server records (`X-Device-Type`, `X-App-Version`,
/// `X-SDK-Version`): 1–64 printable ASCII characters, as the SDK checks before it sends them and
/// the server before it stores them.
public enum AppContextHeader {
    /// Whether `value` is a UUID in its 36-character text form (8-4-4-4-12 hexadecimal digits, either
    /// case), as `UUID(uuidString:)` reads it: checked on every request, without parsing.
    public static func isUUID(_ value: String) -> Bool {
        var count = 0
        for byte in value.utf8 {
            let dash = count == 8 || count == 13 || count == 18 || count == 23
            let hex = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
            guard count < 36, dash ? byte == UInt8(ascii: "-") : hex else { return false }
            count += 1
        }
        return count == 36
    }

    public static func isValid(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 64 && value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// The device label (`X-Device-ID`): 1–128 characters, none a control character (it is shown
    /// in device lists and an operator's terminal).
    public static func isValidDeviceLabel(_ value: String) -> Bool {
        (1...128).contains(value.count) && !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
