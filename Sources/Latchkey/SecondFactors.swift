import Foundation
import LatchkeyAPI
import LatchkeyCore

extension ErrorID {
    /// The user dismissed the passkey sheet (`PasskeyAuthenticator`); nothing was sent.
    public static let passkeyCancelled: ErrorID = "passkey_cancelled"
    /// The phone's authenticator refused the request: the app's associated domain does not name
    /// the relying party, the phone has no passcode, or another request was showing.
    public static let passkeyUnavailable: ErrorID = "passkey_unavailable"
}

/// A second factor a wallet may enrol, and answer the MFA prompt of an unlinked phone with.
public enum FactorKind: String, Sendable, Equatable, CaseIterable {
    /// The spec's MFA questions.
    case question
    /// A passkey (WebAuthn): `PasskeyAuthenticator` on iOS 17.
    case passkey
    /// A code of an authenticator app (RFC 6238, six digits every 30 seconds).
    case totp
    /// One of the single-use recovery codes.
    case recoveryCode

    init(_ wire: Components.Schemas.FactorKind) {
        self = switch wire {
        case .question: .question
        case .passkey: .passkey
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        }
    }
}

/// What a login may have checked for its session to be privileged (credential changes, enrolling
/// and removing factors): a credential or a second factor.
public enum StepUpFactor: String, Sendable, Equatable, CaseIterable {
    case password, pin, question, passkey, totp, recoveryCode

    init(_ wire: Components.Schemas.StepUpFactor) {
        self = switch wire {
        case .password: .password
        case .pin: .pin
        case .question: .question
        case .passkey: .passkey
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        }
    }
}

/// The issuer's factor rules (`issuer.factors`).
public struct FactorPolicy: Sendable, Equatable {
    /// What a wallet may enrol.
    public let enrollable: [FactorKind]
    /// What answers the MFA prompt of a phone not linked to the wallet.
    public let unknownDevice: [FactorKind]
    /// What a login must have checked for its session to be privileged.
    public let stepUp: [StepUpFactor]
    /// Whether a wallet must keep one factor of `unknownDevice`: its last one cannot be removed
    /// (`LatchkeyError` id `.lastFactor`).
    public let required: Bool
    /// The relying party passkeys are created for, when passkeys may be enrolled.
    public let relyingParty: RelyingParty?

    /// The domain passkeys belong to (the app's associated domain `webcredentials:<id>`) and its name.
    public struct RelyingParty: Sendable, Equatable {
        public let id: String
        public let name: String
    }

    init(_ wire: Components.Schemas.FactorPolicy) {
        enrollable = wire.enrollable.map(FactorKind.init)
        unknownDevice = wire.unknownDevice.map(FactorKind.init)
        stepUp = wire.stepUp.map(StepUpFactor.init)
        required = wire.required
        relyingParty = wire.passkeys.map { RelyingParty(id: $0.rpId, name: $0.rpName) }
    }
}

/// One factor the wallet has enrolled.
public struct Factor: Sendable, Equatable, Identifiable {
    /// `questions`, `totp`, `recovery-codes`, or a passkey's id (what ``FactorsClient/removePasskey(_:)`` takes).
    public let id: String
    public let kind: FactorKind
    /// A passkey's name.
    public let name: String?
    public let createdAt: Date
    public let lastUsedAt: Date?
    /// Recovery codes not used yet.
    public let remaining: Int?
    /// Whether a passkey is backed up (synced) by its provider, e.g. iCloud Keychain.
    public let backedUp: Bool?

    init(_ wire: Components.Schemas.Factor) {
        (id, kind, name) = (wire.id, FactorKind(wire.kind), wire.name)
        (createdAt, lastUsedAt, remaining, backedUp) = (wire.createdAt, wire.lastUsedAt, wire.remaining, wire.backedUp)
    }
}

/// A passkey registered to the wallet.
public struct Passkey: Sendable, Equatable, Identifiable {
    /// `pk_` and a UUID.
    public let id: String
    public let name: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    /// Whether the provider may sync it to the user's other devices, and whether it has.
    public let backupEligible: Bool
    public let backedUp: Bool
    public let transports: [String]
    /// The authenticator model's AAGUID, when it gave one.
    public let aaguid: String?

    init(_ wire: Components.Schemas.Passkey) {
        (id, name, createdAt, lastUsedAt) = (wire.id, wire.name, wire.createdAt, wire.lastUsedAt)
        (backupEligible, backedUp, transports, aaguid) = (wire.backupEligible, wire.backedUp, wire.transports ?? [], wire.aaguid)
    }
}

/// A pending authenticator app: show `uri` as a QR code (or `secret` to type in), then confirm
/// with a code the app shows (``FactorsClient/confirmTOTP(_:)``). Its description leaves the
/// secret out, so logging it shows nothing that makes codes.
public struct TOTPEnrollment: Sendable, Equatable, CustomStringConvertible {
    /// The `otpauth://totp/…` URI authenticator apps read.
    public let uri: String
    /// The secret in base32, in groups of four.
    public let secret: String

    public var description: String { "TOTPEnrollment(uri: <redacted>, secret: <redacted>)" }
}
