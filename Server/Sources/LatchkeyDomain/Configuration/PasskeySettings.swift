import Foundation

/// The WebAuthn relying party of the wallet's passkeys (`issuer.passkeys`) and the documents that
/// associate the issuer's apps with its domain.
public struct PasskeySettings: Codable, Sendable, Equatable {
    /// The relying party id, a registrable domain; nil: the host of `publicURL`.
    public var rpID: String?
    /// The relying party's name shown by authenticators; nil: `issuer.name`.
    public var rpName: String?
    /// The origins a ceremony may come from; empty: `publicURL`'s origin. An Android app's
    /// `android:apk-key-hash:` origins follow from `android`.
    public var origins: [String] = []
    /// The iOS apps (`TEAMID.bundle.id`) of `/.well-known/apple-app-site-association`'s `webcredentials`.
    public var appleAppIDs: [String] = []
    /// The Android apps of `/.well-known/assetlinks.json`.
    public var android: [AndroidApp] = []
    /// How long a ceremony's challenge may be answered.
    public var challengeSeconds = 300

    /// An Android app: its package and the SHA-256 fingerprints of its signing certificates.
    public struct AndroidApp: Codable, Sendable, Equatable {
        public var package: String
        public var sha256CertFingerprints: [String]
        public init(package: String, sha256CertFingerprints: [String]) {
            self.package = package
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }
    public init() {}
}
