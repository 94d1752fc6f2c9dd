import Crypto
import Foundation
import LatchkeyCore
import LatchkeyDomain
import Testing

/// The server's side of sealed credentials: a value sealed to the current key opens
/// only for the field, operation and proof it was sealed for; a retired key's seals are refused.
@Suite struct SealKeyringTests {
    static func seal(_ value: String, to key: SealKeyring.Key, field: String, operation: String, proofID: String,
                     thumbprint: String = "jkt") throws -> String {
        let publicKey = try P256.KeyAgreement.PublicKey(x963Representation: Data(base64Encoded: key.publicKey)!)
        var sender = try HPKE.Sender(recipientKey: publicKey, ciphersuite: .P256_SHA256_AES_GCM_256,
                                     info: SealedCredential.info(field: field, operation: operation, keyThumbprint: thumbprint,
                                                                 proofID: proofID))
        let ciphertext = try sender.seal(Data(value.utf8))
        return SealedCredential(keyID: key.id, encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext).text
    }

    @Test func aSealOpensOnlyWhereItWasSealedFor() throws {
        let keyring = SealKeyring(current: P256.KeyAgreement.PrivateKey())
        let now = Date()
        let sealed = try Self.seal("314159", to: keyring.current, field: "/pin", operation: "loginByPIN", proofID: "jti-1")
        #expect(SealedCredential.isSealed(sealed) && SealedCredential(sealed)?.text == sealed)
        #expect(try keyring.open(sealed, field: "/pin", operation: "loginByPIN", keyThumbprint: "jkt", proofID: "jti-1", now: now) == "314159")
        #expect(throws: SealKeyring.Refusal.doesNotOpen) {
            try keyring.open(sealed, field: "/password", operation: "loginByPIN", keyThumbprint: "jkt", proofID: "jti-1", now: now)
        }
        #expect(throws: SealKeyring.Refusal.doesNotOpen) {
            try keyring.open(sealed, field: "/pin", operation: "updateUserPasscode", keyThumbprint: "jkt", proofID: "jti-1", now: now)
        }
        #expect(throws: SealKeyring.Refusal.doesNotOpen) {
            try keyring.open(sealed, field: "/pin", operation: "loginByPIN", keyThumbprint: "jkt", proofID: "jti-2", now: now)
        }
        #expect(throws: SealKeyring.Refusal.doesNotOpen, "the same jti under another key's proof") {
            try keyring.open(sealed, field: "/pin", operation: "loginByPIN", keyThumbprint: "another-key", proofID: "jti-1", now: now)
        }
        #expect(throws: SealKeyring.Refusal.malformed) {
            try keyring.open("hpke1.x.y", field: "/pin", operation: "loginByPIN", keyThumbprint: "jkt", proofID: "jti-1", now: now)
        }
    }

    @Test func aRetiredKeyNoLongerOpens() throws {
        let old = P256.KeyAgreement.PrivateKey()
        let now = Date()
        let before = SealKeyring(current: old)
        let sealed = try Self.seal("hunter2-hunter2", to: before.current, field: "/password", operation: "loginByUsernamePassword",
                                   proofID: "p")
        let rotated = SealKeyring(current: P256.KeyAgreement.PrivateKey(), previous: [(old, until: now.addingTimeInterval(3600))])
        #expect(rotated.current.id != before.current.id)
        #expect(try rotated.open(sealed, field: "/password", operation: "loginByUsernamePassword", keyThumbprint: "jkt", proofID: "p", now: now)
                == "hunter2-hunter2", "within the window the previous key still opens")
        #expect(throws: SealKeyring.Refusal.unknownKey) {
            try rotated.open(sealed, field: "/password", operation: "loginByUsernamePassword", keyThumbprint: "jkt", proofID: "p",
                             now: now.addingTimeInterval(3601))
        }
    }
}
