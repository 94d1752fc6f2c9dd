import Foundation

/// How the SDK tells the first launch after an installation, when Keychain items of an earlier
/// installation of the app may still be there (iOS currently keeps them after the app is deleted;
/// Apple does not promise either way, and the SDK copes with both).
///
/// At a first launch the SDK drops the stored **session and device token** of the earlier
/// installation (whoever deletes the app to sign out is signed out), and keeps the **device key**:
/// the server knows this phone by it, and a wrongly detected "first launch" then costs one login,
/// never the device's link and a new MFA challenge. The check runs only after the stored session
/// could be read, so never while the phone is locked before its first unlock. An app that wants a
/// reinstall to unlink the device calls `LatchkeyClient.resetDeviceKey()` itself.
///
/// The default marker is a file in the app's container, not `UserDefaults`: the container goes
/// with the app, and a file written without data protection can be read before the first unlock,
/// when a background launch would read `UserDefaults` as empty (and keep it so until relaunch).
///
/// The marker is written before the earlier session is dropped. When it cannot be written (a full
/// disk, a directory that cannot be made), the SDK logs a warning and keeps the stored session:
/// otherwise every later launch would look like the first one and sign the user out again. When
/// the earlier session cannot be dropped (the storage refuses a delete), the marker is removed
/// again (best effort) and the state stays `.unknown`: the next read, or the next launch, is a
/// first launch again and tries once more, so the earlier installation's session is never taken up.
public struct ReinstallDetection: Sendable {
    let isFirstLaunch: @Sendable () -> Bool
    let markLaunched: @Sendable () throws -> Void
    let unmarkLaunched: @Sendable () -> Void

    /// A detection of the app's own: `isFirstLaunch` answers whether this is the first launch of
    /// the installation; `markLaunched` records that it is not any more, and throws when it could
    /// not (the earlier installation's session is then kept); `unmarkLaunched` undoes
    /// `markLaunched`, as far as it can, when the earlier session could not be dropped.
    public init(isFirstLaunch: @escaping @Sendable () -> Bool, markLaunched: @escaping @Sendable () throws -> Void,
                unmarkLaunched: @escaping @Sendable () -> Void = {}) {
        self.isFirstLaunch = isFirstLaunch
        self.markLaunched = markLaunched
        self.unmarkLaunched = unmarkLaunched
    }

    /// No detection: stored sessions always stay (storages that do not outlive the app, tests).
    public static let off = ReinstallDetection(isFirstLaunch: { false }, markLaunched: {})

    /// A marker file named after `service` in `directory`, written without data protection.
    /// Apps whose extensions share the Keychain (`KeychainCredentialStorage(accessGroup:)`) pass a
    /// directory of their App Group's container
    /// (`FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`), so an
    /// extension's first launch sees the app's marker.
    public static func markerFile(in directory: URL, service: String = "latchkey") -> ReinstallDetection {
        let marker = directory.appendingPathComponent(".latchkey-installed-\(service)")
        return ReinstallDetection(
            isFirstLaunch: { !FileManager.default.fileExists(atPath: marker.path) },
            markLaunched: {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
                try Data().write(to: marker, options: [.atomic, .noFileProtection])
                #else
                try Data().write(to: marker, options: .atomic)
                #endif
            },
            unmarkLaunched: { try? FileManager.default.removeItem(at: marker) })
    }

    /// What `LatchkeyClient` uses when the app names nothing: a marker file in the app's
    /// Application Support directory (under its bundle identifier) where the Keychain is the default storage (Apple platforms),
    /// no detection elsewhere.
    public static var automatic: ReinstallDetection {
        #if canImport(Security)
        guard let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else {
            return .off
        }
        // Per app: on macOS, Application Support is shared by every app of the user.
        let file = ReinstallDetection.markerFile(in: support.appendingPathComponent(Bundle.main.bundleIdentifier ?? "app")
            .appendingPathComponent("Latchkey"))
        // Versions before the marker file kept a flag in the app's defaults: an upgraded app that has
        // it is not a new installation (read only after the Keychain could be, so after the first unlock).
        let legacy = "latchkey.installed.latchkey"
        return ReinstallDetection(isFirstLaunch: { file.isFirstLaunch() && !UserDefaults.standard.bool(forKey: legacy) },
                                  markLaunched: file.markLaunched, unmarkLaunched: file.unmarkLaunched)
        #else
        .off
        #endif
    }
}
