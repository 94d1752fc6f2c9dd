import Foundation

/// How the SDK tells the first launch after an installation, when Keychain items of an earlier
/// installation of the app may still be there (iOS keeps them after the app is deleted).
///
/// At a first launch the SDK drops the stored **session and device token** of the earlier
/// installation (whoever deletes the app to sign out is signed out), and keeps the **device key**:
/// the server knows this phone by it, and a wrongly detected "first launch" (an app that resets its
/// defaults, an extension's first launch) then costs one login, never the device's link and a new
/// MFA challenge. An app that wants a reinstall to unlink the device calls
/// `LatchkeyClient.resetDeviceKey()` itself.
public struct ReinstallDetection: Sendable {
    let isFirstLaunch: @Sendable () -> Bool
    let markLaunched: @Sendable () -> Void

    /// A detection of the app's own: `isFirstLaunch` answers whether this is the first launch of
    /// the installation; `markLaunched` records that it is not any more (once the session items
    /// are gone).
    public init(isFirstLaunch: @escaping @Sendable () -> Bool, markLaunched: @escaping @Sendable () -> Void) {
        self.isFirstLaunch = isFirstLaunch
        self.markLaunched = markLaunched
    }

    /// No detection: stored sessions always stay (storages that do not outlive the app, tests).
    public static let off = ReinstallDetection(isFirstLaunch: { false }, markLaunched: {})

    /// A marker in `UserDefaults` (removed with the app). Apps whose extensions share the
    /// Keychain (`KeychainCredentialStorage(accessGroup:)`) pass their App Group's suite, so an
    /// extension's first launch sees the app's marker.
    /// - Parameters:
    ///   - suiteName: the defaults suite (an App Group identifier), or `nil` for the app's own.
    ///   - service: names the marker, so two storages of one app keep separate markers.
    public static func userDefaults(suiteName: String? = nil, service: String = "latchkey") -> ReinstallDetection {
        let marker = "latchkey.installed.\(service)"
        return ReinstallDetection(
            isFirstLaunch: { !(UserDefaults(suiteName: suiteName) ?? .standard).bool(forKey: marker) },
            markLaunched: { (UserDefaults(suiteName: suiteName) ?? .standard).set(true, forKey: marker) })
    }

    /// What `LatchkeyClient` uses when the app names nothing: the app's defaults where the
    /// Keychain is the default storage (Apple platforms), no detection elsewhere.
    public static var automatic: ReinstallDetection {
        #if canImport(Security)
        .userDefaults()
        #else
        .off
        #endif
    }
}
