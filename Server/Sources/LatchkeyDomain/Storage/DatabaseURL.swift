import Foundation

/// The engine behind the store.
public enum DatabaseEngine: String, Sendable, Equatable, CaseIterable {
    /// One file (or memory), one server.
    case sqlite
    /// A server that several Latchkey replicas may share.
    case postgres

    /// Whether several servers may share the database: secrets must then be provided
    /// (`latchkey secrets generate`), never invented by a replica, and rate limits are counted
    /// in it when `rateLimits.counting` is `auto`.
    public var isShared: Bool { self == .postgres }
}

/// A `--database` value, parsed once: `sqlite:PATH`, `sqlite::memory:`, or a `postgres://` (or
/// `postgresql://`) URL. Everything that depends on the engine asks `engine`, never the text.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public let engine: DatabaseEngine
    /// The value as given.
    public let string: String

    /// - Throws: `ConfigurationError` (key `database`) for any other form, or `sqlite:` without a path.
    public init(_ string: String) throws {
        self.string = string
        if string.hasPrefix("postgres://") || string.hasPrefix("postgresql://") {
            engine = .postgres
        } else if string.hasPrefix("sqlite:") {
            guard string.count > "sqlite:".count else {
                throw ConfigurationError(key: "database", message: "sqlite: needs a path.")
            }
            engine = .sqlite
        } else {
            throw ConfigurationError(key: "database", message: "Use sqlite:PATH, sqlite::memory: or a postgres:// URL.")
        }
    }

    /// SQLite's file path (`:memory:` for an in-memory database); nil for PostgreSQL.
    public var sqlitePath: String? { engine == .sqlite ? String(string.dropFirst("sqlite:".count)) : nil }

    /// The URL with its password masked, for logs and the console.
    public var description: String { Self.redacted(string) }

    /// The database URL with its password masked, for logs and the console.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(database)"
    }
}
