import Foundation
import LatchkeyCore

/// The app's identity towards the server, the SDK's `PDPaydiantContext`: where the server is,
/// the application signature the issuer generated, the app version, the device, and the
/// messages the app shows for each call's errors.
public struct LatchkeyContext: Sendable {
    /// The server's base URL, e.g. `https://wallet.example.com`.
    public var serverURL: URL
    /// The 36-character UUID identifying this app instance. Required: with an invalid one, every
    /// call throws a configuration error.
    public var applicationSignature: String
    /// The build version of the wallet app.
    public var applicationVersion: String
    /// The unique identifier of this device.
    public var deviceID: String
    /// The type of device, e.g. `iPhone`.
    public var deviceTypeID: String
    /// Messages to show per error domain (`kUserErrorRegisterNewUserDomain`); a key
    /// `DOMAIN.CODE` (`kUserErrorRegisterNewUserDomain.416`) is preferred for that code. Without
    /// one, the server's message is used.
    public var userErrorMessages: [String: String]
    /// The spec's `encryptionSettings`: `kEncryptPin`, `kEncryptPassword`, `kEncryptMFASecretAnswer`
    /// (`true`: the SDK seals those values for the server, HPKE, even where the issuer does not
    /// require it; what the issuer requires is sealed anyway). `kCaseInsensitiveMFASecretAnswer` is
    /// the issuer's, published by the server; a value here is ignored.
    public var encryptionSettings: [String: Bool]
    /// Pins of the server's seal key (the SHA-256 of its X9.63 public key, base64, as
    /// `latchkey secrets generate` prints it): when given, the SDK seals only to a key among them,
    /// so a proxy that could rewrite the server's answers cannot hand it a key of its own.
    public var sealKeyPins: [String]
    /// The spec's `collectStatistics`: when on, the SDK counts every login by method (attempts,
    /// successes, MFA prompts, failures by code, latency) and sends the counts to the server in
    /// batches (`LatchkeyClient.sendLoginStatistics()`); off by default, and then nothing is
    /// counted or sent.
    public var collectStatistics: Bool
    /// How many counted logins make a batch, sent after the next login (default 20).
    public var statisticsBatchSize: Int
    /// The spec's `locationLoggingEnabled`: when on, the SDK's log entries carry the coordinates
    /// the app's `LatchkeyLocationProvider` hands it (the SDK never asks for permission or reads
    /// the location itself). Off by default.
    public var locationLoggingEnabled: Bool
    /// The languages the customer reads, best first (BCP 47 tags such as `de-AT`), sent on every
    /// call as `Accept-Language` so the server writes its messages, emails and SMS in one of them
    /// when the issuer provides it. Defaults to the device's (`Locale.preferredLanguages`); the
    /// first ``maximumPreferredLanguages`` are sent, tags that are not BCP 47 left out.
    public var preferredLanguages: [String]
    /// How many of `preferredLanguages` are sent.
    public static let maximumPreferredLanguages = 6
    /// The spec's `paydiantSDKVersion`: this SDK's release, sent to the server as `X-SDK-Version`
    /// and shown in device lists.
    public var paydiantSDKVersion: String { Self.sdkVersion }
    /// The SDK's release.
    public static let sdkVersion = "1.23.0"

    public init(serverURL: URL, applicationSignature: String, applicationVersion: String = "1.0.0",
                deviceID: String, deviceTypeID: String = "iPhone", userErrorMessages: [String: String] = [:],
                encryptionSettings: [String: Bool] = [:], sealKeyPins: [String] = [], collectStatistics: Bool = false,
                statisticsBatchSize: Int = 20, locationLoggingEnabled: Bool = false,
                preferredLanguages: [String] = Locale.preferredLanguages) {
        self.preferredLanguages = preferredLanguages
        self.collectStatistics = collectStatistics
        self.statisticsBatchSize = statisticsBatchSize
        self.locationLoggingEnabled = locationLoggingEnabled
        self.encryptionSettings = encryptionSettings
        self.sealKeyPins = sealKeyPins
        self.serverURL = serverURL
        self.applicationSignature = applicationSignature
        self.applicationVersion = applicationVersion
        self.deviceID = deviceID
        self.deviceTypeID = deviceTypeID
        self.userErrorMessages = userErrorMessages
    }

    /// Throws a configuration error when the context cannot be used.
    public func validate() throws(LatchkeyError) {
        if applicationSignature.count != 36 || UUID(uuidString: applicationSignature) == nil {
            throw LatchkeyError.configuration("applicationSignature must be a 36-character UUID.")
        }
        if !AppContextHeader.isValidDeviceLabel(deviceID) {
            throw LatchkeyError.configuration("deviceID must have 1 to 128 characters, none a control character.")
        }
        // Sent on every call and kept with the device: the server refuses anything else.
        if !AppContextHeader.isValid(deviceTypeID) {
            throw LatchkeyError.configuration("deviceTypeID must have 1 to 64 printable ASCII characters.")
        }
        if !AppContextHeader.isValid(applicationVersion) {
            throw LatchkeyError.configuration("applicationVersion must have 1 to 64 printable ASCII characters.")
        }
        if serverURL.scheme != "http" && serverURL.scheme != "https" {
            throw LatchkeyError.configuration("serverURL must be an http or https URL.")
        }
    }

    /// The `Accept-Language` value of `preferredLanguages` (`de-AT, de;q=0.9, en;q=0.8`): the
    /// first six well-formed tags, weights falling by 0.1 from 1 so the server keeps their order;
    /// nil when there is none.
    var acceptLanguage: String? {
        let tags = preferredLanguages.map { $0.replacingOccurrences(of: "_", with: "-") }.filter(Self.isLanguageTag)
            .prefix(Self.maximumPreferredLanguages)
        guard !tags.isEmpty else { return nil }
        return tags.enumerated().map { index, tag in index == 0 ? tag : "\(tag);q=0.\(10 - index)" }.joined(separator: ", ")
    }

    /// A BCP 47 tag as a header carries it: subtags of 1 to 8 ASCII letters or digits joined by
    /// `-`, the first letters only.
    private static func isLanguageTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return subtags.allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// The message for an error of `domain` with `code`, if the app configured one.
    func message(for domain: ErrorDomain, code: StatusCode) -> String? {
        userErrorMessages["\(domain.rawValue).\(code.rawValue)"] ?? userErrorMessages[domain.rawValue]
    }
}
