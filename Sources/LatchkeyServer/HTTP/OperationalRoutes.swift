import Foundation
import Hummingbird
import LatchkeyCore
import Metrics
import NIOCore
import Prometheus
import Synchronization

/// `/health` (liveness), `/ready` (database reachable) and `/metrics` (Prometheus text).
enum OperationalRoutes {
    static func add(to router: Router<AppRequestContext>, store: any StoreAdministration, registry: PrometheusCollectorRegistry) {
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
                            body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ready","database":"\#(store.engineName)"}"#)))
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
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
