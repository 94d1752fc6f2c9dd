import Foundation
import LatchkeyAPI
import LatchkeyCore
import LatchkeyServerAPI

extension APIHandler {
    /// `retrieveEncryptionSettings`: the issuer's rules for sealed credentials and the keys to
    /// seal to (the current first; previous ones until they retire).
    package func retrieveEncryptionSettings(_ input: Operations.RetrieveEncryptionSettings.Input) async throws
        -> Operations.RetrieveEncryptionSettings.Output {
        let settings = sealing.settings
        let keys = sealing.keys.keys(at: sealing.now()).map { key in
            Components.Schemas.SealKey(keyId: key.id, publicKey: key.publicKey, current: key.until == nil, expiresAt: key.until)
        }
        return .ok(.init(body: .json(.init(kEncryptPin: settings.pin, kEncryptPassword: settings.password,
                                           kEncryptMFASecretAnswer: settings.mfaAnswers,
                                           kCaseInsensitiveMFASecretAnswer: settings.caseInsensitiveMFAAnswers,
                                           suite: SealedCredential.suite, keys: keys,
                                           profileFields: sealing.profileFields.sorted { $0.key < $1.key }.flatMap { operation, fields in
                                               fields.map { .init(operationId: operation, pointer: $0.pointer) }
                                           }))))
    }
}
