import Foundation
import HTTPTypes
import LatchkeyAPI
import LatchkeyCore
import OpenAPIRuntime

extension LatchkeyClient {
    /// Sends the login statistics waiting on this device now (with `collectStatistics` on; they
    /// are also sent after a login once `statisticsBatchSize` logins wait). Needs a session; a
    /// batch the server did not answer stays, with its id, for the next send (the server counts a
    /// batch once).
    /// - Returns: how many logins the batch counted (0 when none waited, or when
    ///   `collectStatistics` is off).
    /// - Throws: `LatchkeyError` of domain `kLatchkeyDevicesDomain`: `.notLoggedIn` (401) without a
    ///   session, `.transport` when the server cannot be reached.
    @discardableResult
    public func sendLoginStatistics() async throws(LatchkeyError) -> Int {
        let (api, context, logger) = (self.api, self.context, self.logger)
        do {
            let sent = try await statistics.send { batch, id in try await Self.submit(batch, id: id, api: api, context: context) }
            if sent > 0 { logger.log(.debug, "Sent login statistics counting \(sent) logins.", operation: "submitLoginStatistics") }
            return sent
        } catch {
            throw LatchkeyError.from(error, domain: .devices, context: context)
        }
    }

    /// The login statistics counted on this device and not yet taken by the server, one per
    /// login method (none while `collectStatistics` is off).
    public func waitingLoginStatistics() async -> [LoginStatistics] {
        await statistics.waiting()
    }

    static func submit(_ batch: [LoginStatistics], id: String, api: Client, context: LatchkeyContext) async throws(LatchkeyError) {
        try await context.call(.devices) {
            _ = try await api.submitLoginStatistics(body: .json(.init(batchId: id, statistics: batch.compactMap { entry in
                Components.Schemas.LoginStatistics.MethodPayload(rawValue: entry.method.rawValue).map { method in
                    .init(method: method, successes: entry.successes, mfaPrompts: entry.mfaPrompts,
                          failures: .init(additionalProperties: entry.failures),
                          totalLatencyMilliseconds: entry.totalLatencyMilliseconds,
                          maximumLatencyMilliseconds: entry.maximumLatencyMilliseconds)
                }
            }))).noContent
        }
    }
}

/// What happens around each login: it is counted (`collectStatistics`: the login waits for the
/// count to be stored, nothing more), logged, and a due batch of statistics is sent after a
/// successful one in the background.
struct LoginObserver: Sendable {
    let recorder: LoginStatisticsRecorder
    let logger: SDKLogger
    let api: Client
    let context: LatchkeyContext

    /// Records a login that ended with `error` (nil: it succeeded or asked for MFA, `outcome`).
    /// Only what the server answered, or its silence, is counted: an SDK-side refusal (validation,
    /// configuration) sent nothing, and a storage failure after the answer is not the server's.
    func observe(_ method: LoginStatisticsMethod, _ outcome: LoginStatisticsOutcome?, error: LatchkeyError? = nil,
                 milliseconds: Int) async {
        let counted: LoginStatisticsOutcome? = if let outcome { outcome } else if let error {
            switch error.kind {
            case .server, .overloaded, .reauthenticationRequired: .failure(code: "\(error.code.rawValue)")
            case .transport: error.id == .transport ? .failure(code: "network") : .failure(code: "other")
            case .storage: .failure(code: "other")
            case .validation, .configuration: nil
            }
        } else { nil }
        guard let counted else { return }
        let due = await recorder.record(method, counted, latencyMilliseconds: milliseconds)
        let said = switch counted {
        case .success: "succeeded"
        case .mfaRequired: "needs an MFA answer (412)"
        case .failure(let code): "failed (\(code))"
        }
        logger.log(counted == .success ? .info : .warning, "Login by \(method.rawValue) \(said) in \(milliseconds) ms.",
                   operation: "login")
        guard due, counted == .success else { return }
        let (recorder, logger, api, context) = (recorder, logger, api, context)
        Task {
            do {
                let sent = try await recorder.send { batch, id in
                    try await LatchkeyClient.submit(batch, id: id, api: api, context: context)
                }
                logger.log(.debug, "Sent login statistics counting \(sent) logins.", operation: "submitLoginStatistics")
            } catch {
                logger.log(.warning, "Login statistics not sent; kept for the next batch.", operation: "submitLoginStatistics")
            }
        }
    }
}
