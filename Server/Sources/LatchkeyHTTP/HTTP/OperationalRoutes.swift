import Foundation
import Hummingbird
import LatchkeyCore
import LatchkeyDomain
import Metrics
import NIOCore
import Prometheus
import Synchronization

/// `/health` (liveness), `/ready` (database reachable) and `/metrics` (Prometheus text).
package enum OperationalRoutes {
    package static func add(to router: Router<AppRequestContext>, store: any StoreAdministration, registry: PrometheusCollectorRegistry,
                    http: HTTPSettings) {
        router.get("/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        router.get("/ready") { _, _ in
            do {
                try await store.ping()
            } catch {
                throw DomainError(.notReady)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ready","database":"\#(store.databaseEngine.rawValue)"}"#)))
        }
        guard http.metricsEnabled else {
            router.get("/metrics") { _, _ -> Response in throw DomainError(.notFound, message: "Metrics are turned off.") }
            return
        }
        let token = http.metricsToken.map { Data("Bearer \($0)".utf8) }
        router.get("/metrics") { request, _ in
            // The metrics tell request counts and timings: with a token set, only its holder reads them.
            if let token, !ConstantTime.equal(Data((request.headers[.authorization] ?? "").utf8), token) {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .contentType: "text/plain"],
                                body: .init(byteBuffer: ByteBuffer(string: "The metrics need their bearer token.\n")))
            }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}

/// The process-wide metrics backend: swift-metrics into one Prometheus registry, bootstrapped once.
public enum MetricsBackend {
    private static let state = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry `/metrics` shows.
    public static func registry() -> PrometheusCollectorRegistry {
        state.withLock { current in
            if let current { return current }
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            current = registry
            return registry
        }
    }
}
