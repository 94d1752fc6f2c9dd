import Foundation

/// The spec's `encryptionSettings` (`PDPaydiantContext`): which credential values travel sealed
/// (`SealedCredential`) and how MFA answers are compared. The issuer sets them
/// (`issuer.encryption`); the server publishes them with its keys; the app's context may ask for
/// more sealing, never for less.
public struct EncryptionSettings: Codable, Sendable, Equatable {
    /// `kEncryptPin`: PINs (passcodes) travel sealed.
    public var pin: Bool
    /// `kEncryptPassword`: passwords travel sealed.
    public var password: Bool
    /// `kEncryptMFASecretAnswer`: MFA answers travel sealed.
    public var mfaAnswers: Bool
    /// `kCaseInsensitiveMFASecretAnswer`: answers compare without regard to case (the issuer's
    /// normalisation; today's behaviour, so the default).
    public var caseInsensitiveMFAAnswers: Bool

    public init(pin: Bool = false, password: Bool = false, mfaAnswers: Bool = false, caseInsensitiveMFAAnswers: Bool = true) {
        self.pin = pin
        self.password = password
        self.mfaAnswers = mfaAnswers
        self.caseInsensitiveMFAAnswers = caseInsensitiveMFAAnswers
    }

    /// The spec's keys, as an app's `encryptionSettings` dictionary names them.
    public static let specKeys = ["kEncryptPin", "kEncryptPassword", "kEncryptMFASecretAnswer", "kCaseInsensitiveMFASecretAnswer"]

    /// Reads the spec's dictionary (`kEncryptPin: true`, …); absent keys keep their defaults.
    public init(spec dictionary: [String: Bool]) {
        self.init(pin: dictionary["kEncryptPin"] ?? false, password: dictionary["kEncryptPassword"] ?? false,
                  mfaAnswers: dictionary["kEncryptMFASecretAnswer"] ?? false,
                  caseInsensitiveMFAAnswers: dictionary["kCaseInsensitiveMFASecretAnswer"] ?? true)
    }

    /// Whether a value of `kind` must travel sealed.
    public func requiresSealing(_ kind: SealedValueKind) -> Bool {
        switch kind {
        case .pin: pin
        case .password: password
        case .mfaAnswer: mfaAnswers
        // The issuer marked the field `pciEncryptionRequired`: always sealed.
        case .profileField: true
        }
    }

    /// Sealing either side asks for: the server's rules and the app's own.
    public func union(_ other: EncryptionSettings) -> EncryptionSettings {
        EncryptionSettings(pin: pin || other.pin, password: password || other.password, mfaAnswers: mfaAnswers || other.mfaAnswers,
                           caseInsensitiveMFAAnswers: caseInsensitiveMFAAnswers)
    }
}

/// What a sealable request field holds.
public enum SealedValueKind: String, Codable, Sendable, CaseIterable {
    case pin, password, mfaAnswer
    /// A profile field the issuer marks `pciEncryptionRequired` (field metadata).
    case profileField
}
