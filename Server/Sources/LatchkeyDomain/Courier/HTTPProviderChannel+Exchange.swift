import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Tracing

extension HTTPProviderChannel {
    /// The client of every provider and webhook call: redirects are never followed, since on a
    /// redirect to another host AsyncHTTPClient drops only `Authorization` and `Cookie`, so a
    /// provider's secret headers (`X-Postmark-Server-Token`, `api-key`) and a 307/308's body
    /// would go to the redirect's target. One client for the process, like `HTTPClient.shared`:
    /// it lives as long as the process and is never shut down.
    public static let sharedClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                                configuration: .init(redirectConfiguration: .disallow))

    /// How much of an answer is read.
    package static let answerLimitBytes = 64 * 1024

    /// Sends `request` and reads its answer (at most `answerLimitBytes`), the whole exchange
    /// bounded by `timeoutSeconds`: AsyncHTTPClient's own timeout ends when the answer's head
    /// arrives, so a provider that sends its head and then stalls would otherwise hold the
    /// courier forever.
    /// The exchange is a client span (`courier.http`) whose context goes with the request as
    /// W3C `traceparent` when tracing is on.
    /// - Throws: `DeliveryFailure(.transient)` when the time passes (the request is cancelled);
    ///   AsyncHTTPClient's errors when the provider cannot be reached.
    package static func exchange(_ request: HTTPClientRequest, client: HTTPClient,
                                 timeoutSeconds: Int) async throws -> (HTTPClientResponse, ByteBuffer) {
        try await Telemetry.span("courier.http", kind: .client) { span in
            var request = request
            Telemetry.inject(into: &request)
            let answer = try await exchange(traced: request, client: client, timeoutSeconds: timeoutSeconds)
            span?.attributes["http.response.status_code"] = Int(answer.0.status.code)
            return answer
        }
    }

    private static func exchange(traced request: HTTPClientRequest, client: HTTPClient,
                                 timeoutSeconds: Int) async throws -> (HTTPClientResponse, ByteBuffer) {
        try await withThrowingTaskGroup(of: (HTTPClientResponse, ByteBuffer)?.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .seconds(Int64(timeoutSeconds)))
                let body = (try? await response.body.collect(upTo: answerLimitBytes)) ?? ByteBuffer()
                return (response, body)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeoutSeconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else {
                throw DeliveryFailure(.transient, answer: "No complete answer within \(timeoutSeconds) seconds.")
            }
            return answer
        }
    }
}
