import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The moments when a stored session that could not be read may have become readable: the
/// phone's protected data became available (its first unlock after a restart), or the app became
/// active. At each, the SDK reads the stored session again while the state is still
/// ``AuthenticationState/unknown`` and publishes what it finds, so an app launched in the
/// background before the first unlock leaves its splash screen once the phone is unlocked.
///
/// A signal holds a way to make its events, not the events themselves: each client that follows
/// it gets a stream of its own, so one signal can be given to several `LatchkeyClient`s.
public struct ProtectedDataSignal: Sendable {
    let makeEvents: @Sendable () -> AsyncStream<Void>

    /// A signal of the app's own that makes a new stream for each client following it (each
    /// element is one such moment); the stream ends when that client goes away.
    public init(makeEvents: @escaping @Sendable () -> AsyncStream<Void>) {
        self.makeEvents = makeEvents
    }

    /// A signal of the app's own over one stream (e.g. a test's, or an app that observes its
    /// scene's phases). A stream has one reader, so such a signal is for one client only; a signal
    /// given to several clients is made with ``init(makeEvents:)``.
    public init(_ events: AsyncStream<Void>) {
        self.makeEvents = { events }
    }

    /// No signal: the stored session is read again only at the next call.
    public static var never: ProtectedDataSignal { ProtectedDataSignal(makeEvents: { AsyncStream { $0.finish() } }) }

    /// Each post of one of `names` on `center`. Every client that follows the signal has observers
    /// of its own, added when it starts following and removed when it goes away.
    public static func notifications(_ names: [Notification.Name], center: NotificationCenter = .default) -> ProtectedDataSignal {
        let source = NotificationSource(center: center, names: names)
        return ProtectedDataSignal(makeEvents: { source.events() })
    }

    /// What `LatchkeyClient` follows when the app names nothing: on iOS, iPadOS, visionOS and Mac
    /// Catalyst `UIApplication.protectedDataDidBecomeAvailableNotification` and
    /// `UIApplication.didBecomeActiveNotification` (both `nonisolated`, so observed from any
    /// context); on tvOS, which has no protected-data notification, the second; on macOS
    /// `NSApplicationProtectedDataDidBecomeAvailable` (AppKit, macOS 12); elsewhere nothing.
    public static var automatic: ProtectedDataSignal {
        #if os(iOS) || os(visionOS)
        notifications([UIApplication.protectedDataDidBecomeAvailableNotification, UIApplication.didBecomeActiveNotification])
        #elseif os(tvOS)
        notifications([UIApplication.didBecomeActiveNotification])
        #elseif os(macOS)
        notifications([.NSApplicationProtectedDataDidBecomeAvailable])
        #else
        .never
        #endif
    }
}

/// The notifications a signal observes. `NotificationCenter` is thread-safe, so the source is
/// shared by the followers of the signal.
private final class NotificationSource: @unchecked Sendable {
    private let center: NotificationCenter
    private let names: [Notification.Name]

    init(center: NotificationCenter, names: [Notification.Name]) {
        self.center = center
        self.names = names
    }

    /// A stream of its own for one follower, with observers removed when the stream ends.
    func events() -> AsyncStream<Void> {
        let (events, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observers = NotificationObservers(center: center, tokens: names.map { name in
            center.addObserver(forName: name, object: nil, queue: nil) { _ in continuation.yield() }
        })
        continuation.onTermination = { _ in observers.remove() }
        return events
    }
}

/// The observer tokens of one follower of a signal, removed once.
private final class NotificationObservers: @unchecked Sendable {
    private let lock = NSLock()
    private let center: NotificationCenter
    private var tokens: [any NSObjectProtocol]

    init(center: NotificationCenter, tokens: [any NSObjectProtocol]) {
        self.center = center
        self.tokens = tokens
    }

    func remove() {
        let removed = lock.withLock { () -> [any NSObjectProtocol] in
            defer { tokens = [] }
            return tokens
        }
        for token in removed { center.removeObserver(token) }
    }
}
