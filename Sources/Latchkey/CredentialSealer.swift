import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyCore

/// Seals the PIN, password and MFA-answer fields of a request for the server (the spec's
/// `encryptionSettings`): what the server's settings require and what the app's context asks for.
/// The server's settings and current key are read once (`retrieveEncryptionSettings`) and read again
/// when the server refuses a seal's key or asks for a seal. It fails closed: when the settings
/// cannot be read, or their key matches none of the app's pins, a call that carries a credential
/// is not sent.
actor CredentialSealer {
    /// What to seal in one request: the fields and the key.
    struct Plan: Sendable {
        let fields: [SealedField]
        let keyID: String
        let publicKey: P256.KeyAgreement.PublicKey
    }

    private let app: EncryptionSettings
    /// `LatchkeyContext.sealKeyPins`: when not empty, the server's key must be one of these.
    private let pins: Set<String>
    private var server: Server?
    /// What the server's settings say: its rules, its current key, its sealed profile fields.
    struct Server: Sendable {
        let settings: EncryptionSettings
        let keyID: String
        let publicKey: P256.KeyAgreement.PublicKey
        let profileFields: [String: [SealedField]]
    }
    private let fetch: @Sendable () async throws -> Components.Schemas.EncryptionSettingsResponse

    init(app: EncryptionSettings, pins: [String],
         fetch: @escaping @Sendable () async throws -> Components.Schemas.EncryptionSettingsResponse) {
        self.app = app
        self.pins = Set(pins)
        self.fetch = fetch
    }

    /// Forgets the server's settings (a seal named a key the server no longer holds).
    func forget() { server = nil }

    /// The plan for `operationID`, or nil when none of its fields is to be sealed.
    /// - Throws: when the server's settings cannot be read or its key is not pinned (the call is
    ///   then not sent: a credential never goes plain because the settings were out of reach).
    func plan(for operationID: String) async throws -> Plan? {
        let declared = SealedField.all[operationID]
        guard declared != nil || ProfileMetadata.profileOperations.contains(operationID) else { return nil }
        let server = try await serverSettings()
        let wanted = server.settings.union(app)
        let fields = (declared ?? []).filter { wanted.requiresSealing($0.kind) } + (server.profileFields[operationID] ?? [])
        return fields.isEmpty ? nil : Plan(fields: fields, keyID: server.keyID, publicKey: server.publicKey)
    }

    private func serverSettings() async throws -> Server {
        if let server { return server }
        let answer = try await fetch()
        guard let current = answer.keys.first(where: \.current), let raw = Data(base64Encoded: current.publicKey) else {
            throw CocoaError(.coderInvalidValue)
        }
        if !pins.isEmpty, !pins.contains(Data(SHA256.hash(data: raw)).base64EncodedString()) {
            throw LatchkeyError.configuration("The server's seal key \(current.keyId) is none of LatchkeyContext.sealKeyPins.")
        }
        let settings = EncryptionSettings(pin: answer.kEncryptPin, password: answer.kEncryptPassword,
                                          mfaAnswers: answer.kEncryptMFASecretAnswer,
                                          caseInsensitiveMFAAnswers: answer.kCaseInsensitiveMFASecretAnswer)
        var profileFields: [String: [SealedField]] = [:]
        for field in answer.profileFields ?? [] {
            profileFields[field.operationId, default: []].append(SealedField(pointer: field.pointer, kind: .profileField))
        }
        let fetched = Server(settings: settings, keyID: current.keyId, publicKey: try P256.KeyAgreement.PublicKey(x963Representation: raw),
                             profileFields: profileFields)
        server = fetched
        return fetched
    }

    /// `body` with the plan's fields sealed for `operationID` under the proof `proofID` signed by
    /// the device key `keyThumbprint`.
    static func seal(_ body: Data, plan: Plan, operationID: String, keyThumbprint: String, proofID: String) throws -> Data {
        try SealedField.rewrite(body, fields: plan.fields) { pointer, _, value in
            guard !SealedCredential.isSealed(value) else { return value }
            var sender = try HPKE.Sender(recipientKey: plan.publicKey, ciphersuite: .P256_SHA256_AES_GCM_256,
                                         info: SealedCredential.info(field: pointer, operation: operationID,
                                                                     keyThumbprint: keyThumbprint, proofID: proofID))
            let ciphertext = try sender.seal(Data(value.utf8))
            return SealedCredential(keyID: plan.keyID, encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext).text
        }.body
    }
}
