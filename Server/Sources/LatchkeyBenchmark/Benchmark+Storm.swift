import AsyncHTTPClient
import Foundation
import NIOCore

/// A login storm: many more clients than the hashes the server can do, each with a client
/// timeout, each repeating its login as an app would (after `Retry-After` when refused).
struct StormResult {
    var seconds: Double
    /// Latencies of the logins that succeeded.
    var admitted: [Double]
    var refused: Int
    var timeouts: Int
    var otherErrors: Int

    func print(hashRate: Double) {
        let sorted = admitted.sorted()
        let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))] * 1000
        let p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2] * 1000
        let rate = Double(admitted.count) / seconds
        Swift.print(String(format: "password login storm: %.1f logins/s (%.0f%% of the raw hash rate; target ≥ 80%%), "
                           + "admitted p50 %.0f ms p99 %.0f ms (target ≤ 2000), refused %d (503), client timeouts %d, other errors %d",
                           rate, rate / hashRate * 100, p50, p99, refused, timeouts, otherErrors))
    }
}

extension LoadDriver {
    /// `clients` concurrent password logins for `seconds`, each with a `timeout`; a refused client
    /// waits the `Retry-After` the server gave, as the SDK's `retryAfter` tells an app to.
    func storm(clients: Int, seconds: Double, timeout: Int64, request: Request) async throws -> StormResult {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let start = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: StormResult.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    var mine = StormResult(seconds: 0, admitted: [], refused: 0, timeouts: 0, otherErrors: 0)
                    while ContinuousClock.now < deadline {
                        let sent = ContinuousClock.now
                        do {
                            let response = try await client.execute(makeRequest(request), timeout: .seconds(timeout))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            let elapsed = ContinuousClock.now - sent
                            switch response.status.code {
                            case 200:
                                mine.admitted.append(Double(elapsed.components.seconds)
                                                     + Double(elapsed.components.attoseconds) / 1e18)
                            case 503:
                                mine.refused += 1
                                let delay = response.headers.first(name: "Retry-After").flatMap(Int.init) ?? 1
                                try await Task.sleep(for: .seconds(delay))
                            default: mine.otherErrors += 1
                            }
                        } catch let error as HTTPClientError where error == .deadlineExceeded {
                            mine.timeouts += 1
                        } catch {
                            mine.otherErrors += 1
                        }
                    }
                    return mine
                }
            }
            return try await group.reduce(into: [StormResult]()) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - start
        return StormResult(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                           admitted: results.flatMap(\.admitted), refused: results.map(\.refused).reduce(0, +),
                           timeouts: results.map(\.timeouts).reduce(0, +), otherErrors: results.map(\.otherErrors).reduce(0, +))
    }
}
