import LatchkeyCore
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

    /// The relying party the ceremonies check against, with the defaults filled in from where the
    /// server is reached (`publicURL`, read at each ceremony because a server on port 0 learns its
    /// address only once bound) and the issuer's name. The origins are the configured ones (or
    /// `publicURL`'s origin) followed by `android:apk-key-hash:<base64url of the 32 bytes>` of each
    /// Android signing certificate fingerprint, the origin Android's credential manager reports for
    /// an app.
    public func relyingParty(publicURL: String, issuerName: String) -> WebAuthnRelyingParty {
        let url = URL(string: publicURL)
        let host = url?.host ?? "localhost"
        var origins = self.origins.isEmpty ? [Self.origin(of: publicURL)] : self.origins
        origins += android.flatMap(\.sha256CertFingerprints).compactMap(Self.apkKeyHashOrigin)
        return WebAuthnRelyingParty(id: rpID ?? host, name: rpName ?? issuerName, origins: origins)
    }

    /// `scheme://host[:port]` of a URL, as a browser's clientData states an origin (no path, no
    /// default port).
    static func origin(of url: String) -> String {
        guard let parsed = URL(string: url), let scheme = parsed.scheme, let host = parsed.host else { return url }
        let defaultPort = (scheme == "https" && parsed.port == 443) || (scheme == "http" && parsed.port == 80)
        let port = parsed.port.map { defaultPort ? "" : ":\($0)" } ?? ""
        return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(port)"
    }

    /// The origin Android reports for an app signed by the certificate of `fingerprint`
    /// (`AB:CD:…`, 32 hex bytes); nil when it is not one.
    static func apkKeyHashOrigin(_ fingerprint: String) -> String? {
        fingerprintBytes(fingerprint).map { "android:apk-key-hash:" + Base64URL.encode(Data($0)) }
    }

    /// The 32 bytes of a fingerprint written as hex pairs separated by colons; nil otherwise.
    static func fingerprintBytes(_ fingerprint: String) -> [UInt8]? {
        let pairs = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 32 else { return nil }
        let bytes = pairs.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        return bytes.count == 32 ? bytes : nil
    }

    /// Refuses settings no ceremony could pass: an origin that is not `scheme://host[:port]` (or
    /// an `android:apk-key-hash:` one), a fingerprint that is not 32 hex bytes with colons, an app
    /// id without its team, a challenge lifetime outside 30…3600 seconds. Whether `rpID` fits the
    /// origins is the factor rules' check (`FactorSettings.validate`), made only when passkeys may
    /// be enrolled.
    /// - Throws: `ConfigurationError` naming the key under `key` (`issuer.passkeys`).
    public func validate(key: String) throws {
        func require(_ condition: Bool, _ field: String, _ message: String) throws {
            if !condition { throw ConfigurationError(key: key + "." + field, message: message) }
        }
        try require((30...3600).contains(challengeSeconds), "challengeSeconds", "Must be between 30 and 3600.")
        for (index, origin) in origins.enumerated() where !origin.hasPrefix("android:apk-key-hash:") {
            try require(Self.origin(of: origin) == origin && URL(string: origin)?.scheme.map { ["http", "https"].contains($0) } == true,
                        "origins[\(index)]", "Must be an origin: scheme://host[:port], no path or trailing slash.")
        }
        for (index, app) in android.enumerated() {
            try require(!app.package.isEmpty, "android[\(index)].package", "Must not be empty.")
            try require(!app.sha256CertFingerprints.isEmpty, "android[\(index)].sha256CertFingerprints", "Needs at least one fingerprint.")
            for (position, fingerprint) in app.sha256CertFingerprints.enumerated() {
                try require(Self.fingerprintBytes(fingerprint) != nil, "android[\(index)].sha256CertFingerprints[\(position)]",
                            "Must be 32 hex bytes separated by colons (AB:CD:…), as keytool prints it.")
            }
        }
        for (index, app) in appleAppIDs.enumerated() {
            let parts = app.split(separator: ".", maxSplits: 1)
            try require(parts.count == 2 && parts[0].count == 10, "appleAppIDs[\(index)]", "Must be TEAMID.bundle.identifier.")
        }
    }
}
