import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyCore

/// Seals the PIN, password and MFA-answer fields of a request for the server (the spec's
/// `encryptionSettings`): what the server's settings require and what the app's context asks for.
/// The server's settings and keys are read once (`retrieveEncryptionSettings`) and read again
/// when the server refuses a seal's key or asks for a seal. The key sealed to is the server's
/// current one, or — when the app pins keys and the current one is not pinned yet (the server
/// rotated its key before the app's update with the new pin) — the first key before the rotation
/// that is pinned and not past its `expiresAt`; the server opens those until then. It fails
/// closed: when the settings cannot be read, or no usable key matches the app's pins, a call that
/// carries a credential is not sent.
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
    /// The client's clock, for the keys' `expiresAt`.
    private let now: @Sendable () -> Date

    init(app: EncryptionSettings, pins: [String], now: @escaping @Sendable () -> Date = Date.init,
         fetch: @escaping @Sendable () async throws -> Components.Schemas.EncryptionSettingsResponse) {
        self.app = app
        self.pins = Set(pins)
        self.now = now
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
        let (chosen, raw) = try sealKey(of: answer)
        let settings = EncryptionSettings(pin: answer.kEncryptPin, password: answer.kEncryptPassword,
                                          mfaAnswers: answer.kEncryptMFASecretAnswer,
                                          caseInsensitiveMFAAnswers: answer.kCaseInsensitiveMFASecretAnswer)
        var profileFields: [String: [SealedField]] = [:]
        for field in answer.profileFields ?? [] {
            profileFields[field.operationId, default: []].append(SealedField(pointer: field.pointer, kind: .profileField))
        }
        let fetched = Server(settings: settings, keyID: chosen.keyId, publicKey: try P256.KeyAgreement.PublicKey(x963Representation: raw),
                             profileFields: profileFields)
        server = fetched
        return fetched
    }

    /// The key to seal to and its X9.63 point: the current key first, then the earlier ones in the
    /// server's order; the first not past its `expiresAt` whose pin is one of the app's (any, when
    /// the app pins none).
    /// - Throws: `LatchkeyError` `.configuration` when no usable key is pinned; a decoding error when
    ///   the server names no usable key at all.
    private func sealKey(of answer: Components.Schemas.EncryptionSettingsResponse) throws
        -> (Components.Schemas.SealKey, Data) {
        let time = now()
        let usable = (answer.keys.filter(\.current) + answer.keys.filter { !$0.current }).compactMap { key in
            (key.expiresAt.map { $0 > time } ?? true) ? Data(base64Encoded: key.publicKey).map { (key, $0) } : nil
        }
        guard !usable.isEmpty else { throw CocoaError(.coderInvalidValue) }
        guard let chosen = usable.first(where: { pins.isEmpty || pins.contains(Data(SHA256.hash(data: $0.1)).base64EncodedString()) })
        else {
            let ids = usable.map(\.0.keyId).joined(separator: ", ")
            throw LatchkeyError.configuration("None of the server's seal keys (\(ids)) is one of LatchkeyContext.sealKeyPins.")
        }
        return chosen
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
