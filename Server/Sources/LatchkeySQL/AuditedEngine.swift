import Foundation
import LatchkeyDomain

/// The engine under the store, writing the task's pending audit events (`AuditTrail`) in the
/// transaction of its next write: an event and the change it describes commit together or not
/// at all. Reads pass straight through.
package struct AuditedEngine: SQLEngine {
    package let inner: any SQLEngine

    package var kind: DatabaseEngine { inner.kind }
    package var capabilities: SQLCapabilities { inner.capabilities }

    package func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await inner.read(sql, binds)
    }

    /// A write outside a transaction becomes one when events are pending.
    package func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        guard let buffer = AuditTrail.buffer, !buffer.isEmpty, !Self.isRead(sql) else { return try await inner.query(sql, binds) }
        return try await transaction { db in try await db.query(sql, binds) }
    }

    /// The events pending before the transaction and those recorded in it (a lockout the
    /// transaction decided) are inserted last, in it. A retried attempt records its own again.
    package func transaction<T: Sendable>(_ bound: SQLCallBound, _ body: @Sendable (any SQLExecutor) async throws -> T)
        async throws -> T {
        let outer = AuditTrail.buffer
        let carried = outer?.take() ?? []
        return try await inner.transaction(bound) { db in
            let origin = outer?.origin
            let attempt = AuditBuffer(actor: outer?.actor ?? .system, clientIP: origin?.clientIP, deviceID: origin?.deviceID)
            let result = try await AuditTrail.$buffer.withValue(attempt) { try await body(db) }
            try await SQLStore.insert(carried + attempt.take(), into: db)
            return result
        }
    }

    package func run() async { await inner.run() }

    package func close() async throws { try await inner.close() }

    private static func isRead(_ sql: String) -> Bool {
        sql.drop { $0.isWhitespace }.prefix(6).uppercased() == "SELECT"
    }
}
