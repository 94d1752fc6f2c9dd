import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// The moments when a stored session that could not be read may have become readable: the
/// phone's protected data became available (its first unlock after a restart), or the app became
/// active. At each, the SDK reads the stored session again while the state is still
/// ``AuthenticationState/unknown`` and publishes what it finds, so an app launched in the
/// background before the first unlock leaves its splash screen once the phone is unlocked.
public struct ProtectedDataSignal: Sendable {
    let events: AsyncStream<Void>

    /// A signal of the app's own: each element is one such moment (e.g. a test's, or an app that
    /// observes its scene's phases).
    public init(_ events: AsyncStream<Void>) {
        self.events = events
    }

    /// No signal: the stored session is read again only at the next call.
    public static var never: ProtectedDataSignal { ProtectedDataSignal(AsyncStream { $0.finish() }) }

    /// Each post of one of `names` on `center`. The observers are removed when the client that
    /// follows the signal goes away.
    public static func notifications(_ names: [Notification.Name], center: NotificationCenter = .default) -> ProtectedDataSignal {
        let (events, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observers = NotificationObservers(center: center, tokens: names.map { name in
            center.addObserver(forName: name, object: nil, queue: nil) { _ in continuation.yield() }
        })
        continuation.onTermination = { _ in observers.remove() }
        return ProtectedDataSignal(events)
    }

    /// What `LatchkeyClient` follows when the app names nothing: on iOS, iPadOS, visionOS and Mac
    /// Catalyst `UIApplication.protectedDataDidBecomeAvailableNotification` and
    /// `UIApplication.didBecomeActiveNotification` (both `nonisolated`, so observed from any
    /// context); on tvOS, which has no protected-data notification, the second; on macOS
    /// `NSApplicationProtectedDataDidBecomeAvailable` (Foundation, macOS 12); elsewhere nothing.
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

/// The observer tokens of one signal, removed once.
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
