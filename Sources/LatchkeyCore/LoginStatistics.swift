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
    public var attempts: Int { successes + mfaPrompts + failures.values.reduce(0, +) }

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

    /// Adds another period's counts of the same method.
    public mutating func add(_ other: LoginStatistics) {
        successes += other.successes
        mfaPrompts += other.mfaPrompts
        failures.merge(other.failures, uniquingKeysWith: +)
        totalLatencyMilliseconds += other.totalLatencyMilliseconds
        maximumLatencyMilliseconds = max(maximumLatencyMilliseconds, other.maximumLatencyMilliseconds)
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

    /// Checks a batch: 1 to `maximumBatch` entries, each valid.
    /// - Throws: `LoginStatisticsError` naming `statistics` or `statistics[i].<property>`.
    public static func validate(batch: [LoginStatistics]) throws(LoginStatisticsError) {
        guard (1...maximumBatch).contains(batch.count) else {
            throw LoginStatisticsError(field: "statistics", message: "A batch has 1 to \(maximumBatch) entries.")
        }
        for (index, entry) in batch.enumerated() {
            do { try entry.validate() } catch {
                throw LoginStatisticsError(field: "statistics[\(index)].\(error.field)", message: error.message)
            }
        }
    }
}

/// A batch of statistics that breaks a rule: the property and why.
public struct LoginStatisticsError: Error, Sendable, Equatable {
    public let field: String
    public let message: String
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}
