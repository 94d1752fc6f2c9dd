import Crypto
import Foundation
@testable import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyHTTP
import Testing

/// Every key the server derives from the pepper, pinned: the bytes of each derivation and what the
/// components keyed by them produce for a fixed pepper. Deployed databases hold values made with
/// these keys (sealed outbox messages, sealed profile fields, one-time-code digests, audit
/// digests), so a change to a label or to the derivation must fail here rather than in production.
/// The expected values were computed independently (Python's `cryptography`: HKDF-SHA256 without
/// salt, AES-256-GCM, HMAC-SHA256).
@Suite struct PepperKeyTests {
    static let pepper = SymmetricKey(data: Data(repeating: 7, count: 32))

    static func hex(_ key: SymmetricKey) -> String {
        key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    /// Each purpose's label and key: the one list of what the pepper keys.
    @Test func everyPurposeHasItsPinnedLabelAndKey() {
        let pinned: [PepperPurpose: (label: String, key: String)] = [
            .oneTimeCode: ("latchkey otp v1", "785868debb35ace17a6089e7b0d642bff6bfb5163da18419308f4733dc9994e7"),
            .outbox: ("latchkey outbox v1", "3a2844e20fe126651d7b3ea1a9b31777fb0632d2a6cfcd52f4527236d6d1cd62"),
            .profileField: ("latchkey profile field v1", "7838cc5d9cd6b42123b5d282cc123ca8308d835206716f1a5cc07d3aeb9f09b3"),
            .auditIdentifier: ("latchkey audit identifier v1", "6976bb51830fef214533d8ceaa55def584fc6b26907460d4738de76514f62990"),
            .dpopNonce: ("latchkey dpop nonce v2", "4e8f8c118891dee089376787c7230c56f3474bd7de5f1439b1be0c83bb9785c1"),
            .consoleTOTPSetup: ("latchkey console totp setup", "b1fe28f582043ca82d099bdc50b562630ee7c9ac7f8bc236a2142d1216261669"),
            .portalCSRF: ("latchkey portal csrf", "091ca077fd0a187970d57a2a1700904ff061ee127554fa76ed718102c06cec4c"),
            .consoleCSRF: ("latchkey console csrf", "e87ea12b8093920d92671c0e25e930964d93205b505bda00a7d2740b78e403b2"),
            .passkeyUserHandle: ("latchkey passkey user handle v1", "61afaeca6dcab3ba6b79d1dac43383c71b0b163f5cadd07f5e9cd0c9d66c6d96"),
        ]
        #expect(Set(PepperPurpose.allCases) == Set(pinned.keys))
        for purpose in PepperPurpose.allCases {
            #expect(purpose.label == pinned[purpose]?.label, "\(purpose)")
            #expect(Self.hex(purpose.key(from: Self.pepper)) == pinned[purpose]?.key, "\(purpose)")
        }
        #expect(Set(PepperPurpose.allCases.map(\.label)).count == PepperPurpose.allCases.count)
    }

    @Test func theOneTimeCodeKeyIsPinned() {
        #expect(Self.hex(SignupService.otpKey(pepper: Self.pepper)) == "785868debb35ace17a6089e7b0d642bff6bfb5163da18419308f4733dc9994e7")
    }

    @Test func theDPoPNonceKeyIsPinned() {
        #expect(Self.hex(DPoPNonces(pepper: Self.pepper).key) == "4e8f8c118891dee089376787c7230c56f3474bd7de5f1439b1be0c83bb9785c1")
    }

    @Test func theAuditIdentifierKeyIsPinned() {
        let recorder = AuditRecorder(now: Date.init, pepper: Self.pepper)
        #expect(Self.hex(recorder.identifierKey) == "6976bb51830fef214533d8ceaa55def584fc6b26907460d4738de76514f62990")
        #expect(recorder.identifier("hunter2 not an address") == "identifier:eb0df454e19491a5")
    }

    /// An outbox row sealed under the pinned pepper (nonce 00…0b) still opens.
    @Test func anOutboxMessageSealedBeforeStillOpens() throws {
        let row = OutboxMessage(id: "m1", channel: "email", recipient: "a@example.com", template: "t", subject: "s",
                                sealedPayload: "AAECAwQFBgcICQoLrrcRaXQcOEfSzl8LsbtT2+/2uKkHMhdRAPj/1eE/wc/QUmLlyN0B0OxunamW2oFjFHZkcNIAYYspw+KrTHB9",
                                createdAt: Date(timeIntervalSince1970: 0), nextAttemptAt: Date(timeIntervalSince1970: 0))
        let message = try #require(OutboxCipher(pepper: Self.pepper).open(row))
        #expect(message.body == "pinned body")
        #expect(message.data == ["code": "123456"])
    }

    /// A profile field sealed under the pinned pepper (nonce 00…0b) still opens.
    @Test func aProfileFieldSealedBeforeStillOpens() throws {
        let sealed = "enc1:AAECAwQFBgcICQoL2DonMf7/fw2ciBD+wrG8kvamKl6tXWpQeE2H02urVdk+BgQ="
        #expect(try ProfileFieldCipher(pepper: Self.pepper).open(sealed) == "4111 1111 1111 1111")
    }

    @Test func thePortalFormFieldIsPinned() {
        let field = PortalCSRF(pepper: Self.pepper, secureCookie: true).field(cookie: "cookie", token: "token")
        #expect(field == "Q-M3r_apVwYtoEyzjqkoAnhQzdBcYoZ7ZA0vN_I8zpY")
    }

    @Test func theConsoleFormFieldIsPinned() {
        let field = ConsoleCookies(pepper: Self.pepper, secure: true).csrf(forSession: "digest")
        #expect(field == "-WDoNRJNhau-4q2u4HxR0rMU_y-md6sZIzKpmNfG09Q")
    }

    @Test func thePepperFingerprintIsPinned() {
        #expect(ClusterSecrets.fingerprint(pepper: Self.pepper) == "86af5c5854f4555fc69404dbee199a14")
    }
}
