import Crypto
import Foundation

/// Every key the server derives from the pepper, one per purpose, so no two uses share a key and a
/// key found in one place opens nothing in another. Each is HKDF-SHA256 of the pepper (no salt)
/// with the purpose's label as `info`, 32 bytes.
///
/// The labels are part of the stored data: outbox messages, sealed profile fields and one-time
/// code digests in a database were made with these keys, so a label never changes (a new scheme
/// gets a new purpose with a new label). A rotated pepper's keys are derived the same way from the
/// previous pepper (`previousPeppers`).
///
/// Two uses take the pepper itself rather than a derived key: the credential hash mixes it in by
/// HMAC before scrypt (`SecretHasher`), and the fingerprint the database records is an HMAC of a
/// fixed label (`ClusterSecrets.fingerprint(pepper:)`).
package enum PepperPurpose: CaseIterable, Sendable {
    /// The keyed digests one-time codes are stored as (`SignupService.digest(_:flowID:)`).
    case oneTimeCode
    /// AES-GCM of the outbox's message bodies (`OutboxCipher`).
    case outbox
    /// AES-GCM of the profile fields the issuer marks `pciEncryptionRequired` (`ProfileFieldCipher`).
    case profileField
    /// The digests the audit trail keeps of typed identifiers (`AuditRecorder.identifier(_:)`).
    case auditIdentifier
    /// The HMAC of the stateless DPoP nonces (`DPoPNonces`).
    case dpopNonce
    /// The authenticator secret of an operator's setup link (`ConsoleService`).
    case consoleTOTPSetup
    /// The CSRF fields of the portal's forms (`PortalCSRF`).
    case portalCSRF
    /// The CSRF fields of the console's signed-in forms (`ConsoleCookies`).
    case consoleCSRF
    /// The WebAuthn user handles of the wallets' passkeys (`PasskeyCeremonies.userHandle(for:)`).
    case passkeyUserHandle

    /// The HKDF `info` of the purpose.
    package var label: String {
        switch self {
        case .oneTimeCode: "latchkey otp v1"
        case .outbox: "latchkey outbox v1"
        case .profileField: "latchkey profile field v1"
        case .auditIdentifier: "latchkey audit identifier v1"
        case .dpopNonce: "latchkey dpop nonce v2"
        case .consoleTOTPSetup: "latchkey console totp setup"
        case .portalCSRF: "latchkey portal csrf"
        case .consoleCSRF: "latchkey console csrf"
        case .passkeyUserHandle: "latchkey passkey user handle v1"
        }
    }

    /// The purpose's key under `pepper`.
    package func key(from pepper: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: pepper, info: Data(label.utf8), outputByteCount: 32)
    }
}
