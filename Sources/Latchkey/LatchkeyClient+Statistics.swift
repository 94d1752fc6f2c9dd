import Foundation
import HTTPTypes
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

extension LatchkeyClient {
    /// Sends the login statistics waiting on this device now (with `collectStatistics` on; they
    /// are also sent after a login once `statisticsBatchSize` logins wait). Needs a session; what
    /// the server did not take stays waiting for the next batch.
    /// - Returns: how many logins the batch counted (0 when none waited).
    /// - Throws: `LatchkeyError` of domain `kLatchkeyDevicesDomain`: `.notLoggedIn` (401) without a
    ///   session, `.transport` when the server cannot be reached.
    @discardableResult
    public func sendLoginStatistics() async throws(LatchkeyError) -> Int {
        let (api, context) = (self.api, self.context)
        do {
            return try await statistics.send { batch in try await Self.submit(batch, api: api, context: context) }
        } catch {
            throw LatchkeyError.from(error, domain: .devices, context: context)
        }
    }

    /// The login statistics counted on this device and not sent yet, one per login method.
    public func waitingLoginStatistics() async -> [LoginStatistics] {
        await statistics.waiting()
    }

    static func submit(_ batch: [LoginStatistics], api: Client, context: LatchkeyContext) async throws(LatchkeyError) {
        try await context.call(.devices) {
            _ = try await api.submitLoginStatistics(body: .json(.init(statistics: batch.map { entry in
                .init(method: .init(rawValue: entry.method.rawValue) ?? .password,
                      successes: entry.successes, mfaPrompts: entry.mfaPrompts,
                      failures: .init(additionalProperties: entry.failures),
                      totalLatencyMilliseconds: entry.totalLatencyMilliseconds,
                      maximumLatencyMilliseconds: entry.maximumLatencyMilliseconds)
            }))).noContent
        }
    }
}

/// What happens around each login: it is counted (`collectStatistics`), logged, and a due batch
/// of statistics is sent after a successful one, in the background (a login never waits for it).
struct LoginObserver: Sendable {
    let recorder: LoginStatisticsRecorder
    let logger: SDKLogger
    let api: Client
    let context: LatchkeyContext

    func observe(_ method: LoginStatisticsMethod, _ outcome: LoginStatisticsOutcome, since started: ContinuousClock.Instant) async {
        let milliseconds = LoggingMiddleware.milliseconds(since: started)
        let due = await recorder.record(method, outcome, latencyMilliseconds: milliseconds)
        let said = switch outcome {
        case .success: "succeeded"
        case .mfaRequired: "needs an MFA answer (412)"
        case .failure(let code): "failed (\(code))"
        }
        await logger.log(outcome == .success ? .info : .warning, "Login by \(method.rawValue) \(said) in \(milliseconds) ms.",
                         operation: "login")
        guard due, outcome == .success else { return }
        let (recorder, logger, api, context) = (recorder, logger, api, context)
        Task {
            do {
                let sent = try await recorder.send { batch in try await LatchkeyClient.submit(batch, api: api, context: context) }
                await logger.log(.debug, "Sent login statistics counting \(sent) logins.", operation: "submitLoginStatistics")
            } catch {
                await logger.log(.warning, "Login statistics not sent; kept for the next batch.", operation: "submitLoginStatistics")
            }
        }
    }
}
