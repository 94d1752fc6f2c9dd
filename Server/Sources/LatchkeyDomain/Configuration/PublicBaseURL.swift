import Synchronization

/// The base URL that links in messages point to: `publicURL` when configured, otherwise the
/// address the server actually listens on (known only once it is bound, e.g. with port 0).
public final class PublicBaseURL: Sendable {
    private let state: Mutex<String>
    private let fixed: Bool

    public init(configuration: ServerConfiguration) {
        state = Mutex(configuration.resolvedPublicURL)
        fixed = configuration.publicURL != nil
    }

    /// The current base URL.
    public var value: String { state.withLock { $0 } }

    /// Records the bound port, unless a public URL is configured.
    package func bound(host: String, port: Int) {
        guard !fixed else { return }
        state.withLock { $0 = "http://\(host):\(port)" }
    }
}
