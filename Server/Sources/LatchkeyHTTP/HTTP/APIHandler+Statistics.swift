import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

extension APIHandler {
    package func submitLoginStatistics(_ input: Operations.SubmitLoginStatistics.Input) async throws
        -> Operations.SubmitLoginStatistics.Output {
        let batch = input.body.json.statistics.map { entry in
            LoginStatistics(method: LoginStatisticsMethod(rawValue: entry.method.rawValue) ?? .password,
                            successes: entry.successes, mfaPrompts: entry.mfaPrompts,
                            failures: entry.failures.additionalProperties, totalLatencyMilliseconds: entry.totalLatencyMilliseconds,
                            maximumLatencyMilliseconds: entry.maximumLatencyMilliseconds)
        }
        try await statistics.submit(batch, caller: caller)
        return .noContent(.init())
    }
}
