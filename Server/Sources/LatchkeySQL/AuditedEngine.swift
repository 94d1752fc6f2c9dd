import Foundation
import LatchkeyDomain
import Tracing

/// The engine under the store, writing the pending events of the trail it carries (`AuditTrail`,
/// given by `SQLStore.recording(into:)`) in the transaction of its next write: an event and the
/// change it describes commit together or not at all. Each transaction also has a trail of its own
/// (`SQLExecutor.audit`) for what only it can decide, a lockout; a retried attempt records its own
/// again. Reads pass straight through.
package struct AuditedEngine: SQLEngine {
    package let inner: any SQLEngine
    /// The request's or command's events; nil for the store as built (background work), whose
    /// transactions still write their own.
    package let trail: AuditTrail?

    package init(inner: any SQLEngine, trail: AuditTrail? = nil) {
        self.inner = inner
        self.trail = trail
    }

    package var kind: DatabaseEngine { inner.kind }
    package var capabilities: SQLCapabilities { inner.capabilities }

    package func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        guard Telemetry.isActive else { return try await inner.read(sql, binds) }
        return try await Telemetry.span("db.statement", kind: .client) { span in
            span?.attributes["db.system"] = inner.kind.telemetryName
            return try await inner.read(sql, binds)
        }
    }

    /// A write outside a transaction becomes one when events are pending.
    package func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        guard let trail, !trail.isEmpty, !Self.isRead(sql) else { return try await statement(sql, binds) }
        return try await transaction { db in try await db.query(sql, binds) }
    }

    /// One statement outside a transaction, a span of its own when tracing is on.
    private func statement(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        guard Telemetry.isActive else { return try await inner.query(sql, binds) }
        return try await Telemetry.span("db.statement", kind: .client) { span in
            span?.attributes["db.system"] = inner.kind.telemetryName
            return try await inner.query(sql, binds)
        }
    }

    /// The events pending before the transaction and those recorded in it are inserted last, in
    /// it. The transaction, retries included, is a span (`db.transaction`) when tracing is on.
    package func transaction<T: Sendable>(_ bound: SQLCallBound, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
        guard Telemetry.isActive else { return try await audited(bound, body) }
        return try await Telemetry.span("db.transaction", kind: .client) { span in
            span?.attributes["db.system"] = inner.kind.telemetryName
            return try await audited(bound, body)
        }
    }

    private func audited<T: Sendable>(_ bound: SQLCallBound, _ body: @escaping @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
        let carried = trail?.take() ?? []
        let origin = trail?.origin
        let actor = trail?.actor ?? .system
        return try await inner.transaction(bound) { db in
            let attempt = AuditTrail(actor: actor, clientIP: origin?.clientIP, deviceID: origin?.deviceID)
            let result = try await body(AuditedExecutor(inner: db, audit: attempt))
            try await SQLStore.insert(carried + attempt.take(), into: db)
            return result
        }
    }

    package func run() async { await inner.run() }

    package func close() async throws { try await inner.close() }

    package func checkpoint() async throws { try await inner.checkpoint() }

    private static func isRead(_ sql: String) -> Bool {
        sql.drop { $0.isWhitespace }.prefix(6).uppercased() == "SELECT"
    }
}

/// An open transaction of an `AuditedEngine`, with the trail of its own events.
struct AuditedExecutor: SQLExecutor {
    let inner: any SQLExecutor
    let audit: AuditTrail?

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await inner.query(sql, binds)
    }
}

extension DatabaseEngine {
    /// OpenTelemetry's `db.system` name of the engine.
    var telemetryName: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgresql"
        }
    }
}
