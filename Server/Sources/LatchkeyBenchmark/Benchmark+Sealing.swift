import Crypto
import Foundation
import LatchkeyCore
import LatchkeyDomain

/// What opening a sealed credential adds to a login: the server's CPU for one HPKE
/// open (one P-256 ECDH, HKDF, AES-256-GCM) next to the CPU of the one hash a login verifies.
enum SealingBenchmark {
    static func run(hashRate: Double, seconds: Double) throws {
        let keyring = SealKeyring(current: P256.KeyAgreement.PrivateKey())
        let publicKey = try P256.KeyAgreement.PublicKey(x963Representation: Data(base64Encoded: keyring.current.publicKey)!)
        // Sealed before the timed loop, each for its own proof, as requests would bring them.
        let count = 2_000
        let sealed = try (0..<count).map { index in
            var sender = try HPKE.Sender(recipientKey: publicKey, ciphersuite: .P256_SHA256_AES_GCM_256,
                                         info: SealedCredential.info(field: "/password", operation: "loginByUsernamePassword",
                                                                     keyThumbprint: "bench-key", proofID: "jti-\(index)"))
            let ciphertext = try sender.seal(Data("correct-horse-42".utf8))
            return SealedCredential(keyID: keyring.current.id, encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext).text
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let start = ContinuousClock.now
        var opened = 0
        while ContinuousClock.now < deadline || opened == 0 {
            let index = opened % count
            _ = try keyring.open(sealed[index], field: "/password", operation: "loginByUsernamePassword", keyThumbprint: "bench-key",
                                 proofID: "jti-\(index)", now: Date())
            opened += 1
        }
        let elapsed = ContinuousClock.now - start
        let openMicros = Double(elapsed.components.seconds) * 1e6 / Double(opened)
            + Double(elapsed.components.attoseconds) / 1e12 / Double(opened)
        // The hash rate is of all cores: one hash costs `cores / rate` seconds of one core.
        let hashMicros = Double(ProcessInfo.processInfo.activeProcessorCount) / hashRate * 1e6
        print(String(format: "sealed credential: opening %.0f µs of one core; a login's hash %.0f µs; a sealed login costs %.2f %% more CPU",
                     openMicros, hashMicros, openMicros / hashMicros * 100))
    }
}
