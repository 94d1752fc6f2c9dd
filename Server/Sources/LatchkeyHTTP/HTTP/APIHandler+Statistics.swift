import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServerAPI

extension APIHandler {
    package func submitLoginStatistics(_ input: Operations.SubmitLoginStatistics.Input) async throws
        -> Operations.SubmitLoginStatistics.Output {
        let body = input.body.json
        let batch = try body.statistics.enumerated().map { index, entry in
            guard let method = LoginStatisticsMethod(rawValue: entry.method.rawValue) else {
                throw DomainError.invalidField("statistics[\(index)].method", "Not a login method counted.")
            }
            return LoginStatistics(method: method, successes: entry.successes, mfaPrompts: entry.mfaPrompts,
                                   failures: entry.failures.additionalProperties, totalLatencyMilliseconds: entry.totalLatencyMilliseconds,
                                   maximumLatencyMilliseconds: entry.maximumLatencyMilliseconds)
        }
        try await statistics.submit(batch, id: body.batchId, caller: caller)
        return .noContent(.init())
    }
}
