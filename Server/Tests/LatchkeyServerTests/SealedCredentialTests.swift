import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyTestSupport
import Testing

/// Credentials sealed from the app to the server (the spec's `encryptionSettings`).
/// The issuer requires PINs, passwords and MFA answers sealed; the tests seal with swift-crypto's
/// HPKE directly (the SDK's sealing is tested through the SDK; Python's in CI).
@Suite struct SealedCredentialTests {
    static func sealing(_ configuration: inout ServerConfiguration) {
        configuration.publicURL = TestDeviceKey.base
        configuration.issuer.encryption.pin = true
        configuration.issuer.encryption.password = true
        configuration.issuer.encryption.mfaAnswers = true
    }

    static func settings(_ client: any TestClientProtocol) async throws -> Components.Schemas.EncryptionSettingsResponse {
        try #require(try await client.call(.get, "/v1/enrollment/encryption-settings")
            .decoded(Components.Schemas.EncryptionSettingsResponse.self))
    }

    /// `value` sealed to `key` for `pointer` of `operation` under the proof `jti` of `device`.
    static func seal(_ value: String, to key: Components.Schemas.SealKey, pointer: String, operation: String, jti: String,
                     device: TestDeviceKey) throws -> String {
        let publicKey = try P256.KeyAgreement.PublicKey(x963Representation: try #require(Data(base64Encoded: key.publicKey)))
        var sender = try HPKE.Sender(recipientKey: publicKey, ciphersuite: .P256_SHA256_AES_GCM_256,
                                     info: SealedCredential.info(field: pointer, operation: operation,
                                                                 keyThumbprint: device.thumbprint, proofID: jti))
        let ciphertext = try sender.seal(Data(value.utf8))
        return SealedCredential(keyID: key.keyId, encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext).text
    }

    /// `body` with every sealable field of `operation` sealed for the proof `jti`.
    static func sealed(_ body: [String: Any], _ operation: String, to key: Components.Schemas.SealKey, jti: String,
                       device: TestDeviceKey) throws -> Any {
        let data = try JSONSerialization.data(withJSONObject: body)
        let fields = try #require(SealedField.all[operation])
        let rewritten = try SealedField.rewrite(data, fields: fields) { pointer, _, value in
            try seal(value, to: key, pointer: pointer, operation: operation, jti: jti, device: device)
        }
        return try JSONSerialization.jsonObject(with: rewritten.body)
    }

    @Test(arguments: TestEnvironment.engines)
    func everyCredentialCallOpensItsSeals(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.sealing) { app, client in
            let settings = try await Self.settings(client)
            #expect(settings.kEncryptPin && settings.kEncryptPassword && settings.kEncryptMFASecretAnswer)
            let current = try #require(settings.keys.first { $0.current })
            let key = TestDeviceKey()
            func call(_ method: HTTPRequest.Method, _ path: String, _ operation: String, token: String? = nil,
                      _ body: [String: Any]) async throws -> JSONAnswer {
                try await client.sealedCall(key, method, path, token: token) { jti in
                    try Self.sealed(body, operation, to: current, jti: jti, device: key)
                }
            }
            let registered = try await call(.post, "/v1/enrollment/users", "registerNewUser", registrationBody(email: "ada@example.com"))
            #expect(registered.status == .created, "\(registered.json)")
            try await AuthFixture.verifyEmail(app, client)
            let nonce = try await client.dpopCall(key, .post, "/v1/auth/login/nonce", body: ["nonce": try #require(registered.registration?.nonce)])
            #expect(nonce.status == .ok, "\(nonce.json)")
            let password = try await call(.post, "/v1/auth/login/password", "loginByUsernamePassword",
                                          ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(password.status == .ok, "\(password.json)")
            let session = try #require(password.login?.sessionToken)
            let pin = try await call(.post, "/v1/auth/login/pin", "loginByPIN", ["pin": AuthFixture.pin])
            #expect(pin.status == .ok, "\(pin.json)")
            let token = try await call(.post, "/v1/auth/device-token", "generateDeviceAuthenticationToken", token: session,
                                       ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(token.status == .created, "\(token.json)")
            let changed = try await call(.put, "/v1/profile/password", "updateUserPassword", token: session,
                                         ["oldPassword": AuthFixture.password, "newPassword": "sealed-anew-2026",
                                          "confirmNewPassword": "sealed-anew-2026"])
            #expect(changed.status == .ok, "\(changed.json)")

            // A new device: the MFA answer travels sealed too.
            let other = TestDeviceKey()
            let prompt = try await client.sealedCall(other, .post, "/v1/auth/login/password", device: "device-2") { jti in
                try Self.sealed(["username": "ada@example.com", "password": "sealed-anew-2026"], "loginByUsernamePassword",
                                to: current, jti: jti, device: other)
            }
            let challenge = try #require(prompt.login?.mfaToken, "\(prompt.json)")
            let answered = try await client.sealedCall(other, .post, "/v1/auth/mfa", device: "device-2") { jti in
                try Self.sealed(["challengeToken": challenge.challengeToken,
                                 "mfaSecretAnswer": AuthFixture.answer(for: try #require(challenge.mfaSecretQuestion))],
                                "registerWithMFA", to: current, jti: jti, device: other)
            }
            #expect(answered.status == .ok && answered.login?.sessionToken != nil, "\(answered.json)")
        }
    }

    /// A plain value the issuer requires sealed, a seal moved to another field, a seal sent again
    /// with another proof, a seal without a proof and a seal to a retired key are refused 400
    /// naming the field; a seal to a previous key within its window opens.
    @Test func misusedSealsAreRefusedNamingTheField() async throws {
        let retired = P256.KeyAgreement.PrivateKey(), previous = P256.KeyAgreement.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-seal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let retiredFile = directory.appendingPathComponent("retired.pem").path, previousFile = directory.appendingPathComponent("previous.pem").path
        try retired.pemRepresentation.write(toFile: retiredFile, atomically: true, encoding: .utf8)
        try previous.pemRepresentation.write(toFile: previousFile, atomically: true, encoding: .utf8)
        let configure: (inout ServerConfiguration) -> Void = { configuration in
            Self.sealing(&configuration)
            configuration.secrets.previousSealKeys = [PreviousSealKey(file: retiredFile, until: "2020-01-01T00:00:00Z"),
                                                      PreviousSealKey(file: previousFile, until: "2999-01-01T00:00:00Z")]
        }
        try await withServer(configure: configure) { app, client in
            let settings = try await Self.settings(client)
            #expect(settings.keys.count == 2, "the retired key is not served")
            let current = try #require(settings.keys.first { $0.current })
            let key = TestDeviceKey()
            var registrationJTI = ""
            let registered = try await client.sealedCall(key, .post, "/v1/enrollment/users") { jti in
                registrationJTI = jti
                return try Self.sealed(registrationBody(email: "ada@example.com"), "registerNewUser", to: current, jti: jti, device: key)
            }
            // Its policy records no proof, but a request whose seal opened is recorded for every replica.
            #expect(try await app.store.recordProof(digest: SecureRandom.digest(key.thumbprint + "." + registrationJTI),
                                                    expiresAt: Date().addingTimeInterval(60), now: Date()) == false)
            try await AuthFixture.verifyEmail(app, client)
            _ = try await client.dpopCall(key, .post, "/v1/auth/login/nonce", body: ["nonce": try #require(registered.registration?.nonce)])
            let login = "loginByUsernamePassword", path = "/v1/auth/login/password"
            func attempt(_ value: @escaping (String) throws -> String) async throws -> JSONAnswer {
                try await client.sealedCall(key, .post, path) { jti in ["username": "ada@example.com", "password": try value(jti)] }
            }

            let plain = try await attempt { _ in AuthFixture.password }
            #expect(plain.status == .badRequest && plain.failure?.id == "seal_required" && plain.errorField == "password",
                    "\(plain.json)")
            #expect(!String(decoding: plain.data, as: UTF8.self).contains(AuthFixture.password))

            let moved = try await attempt { try Self.seal(AuthFixture.password, to: current, pointer: "/pin", operation: login, jti: $0, device: key) }
            #expect(moved.status == .badRequest && moved.errorField == "password", "\(moved.json)")
            let otherCall = try await attempt {
                try Self.seal(AuthFixture.password, to: current, pointer: "/password", operation: "generateDeviceAuthenticationToken", jti: $0,
                          device: key)
            }
            #expect(otherCall.status == .badRequest && otherCall.errorField == "password", "\(otherCall.json)")
            // What a seal holds passes the NUL guard the edge ran on the sealed body.
            let nul = try await attempt { try Self.seal("correct\u{0}horse", to: current, pointer: "/password", operation: login, jti: $0, device: key) }
            #expect(nul.status == .badRequest && nul.errorField == "password" && nul.failure?.id == "invalid_field", "\(nul.json)")

            var captured: String?
            let first = try await attempt { jti in
                // Made again for each attempt's proof; the one that opened is kept.
                captured = try Self.seal(AuthFixture.password, to: current, pointer: "/password", operation: login, jti: jti, device: key)
                return captured!
            }
            #expect(first.status == .ok, "the seal opens once, with its proof: \(first.json)")
            let replayed = try await attempt { _ in captured! }
            #expect(replayed.status == .badRequest && replayed.errorField == "password", "\(replayed.json)")
            let unproved = try await client.call(.post, path, body: ["username": "ada@example.com", "password": captured!])
            #expect(unproved.status == .badRequest && unproved.errorField == "password", "\(unproved.json)")

            // The seal and the proof's jti, taken from a request seen in transit, under a proof
            // signed by another key: the seal is bound to the device key's thumbprint too.
            let thief = TestDeviceKey(), stolenJTI = UUID().uuidString
            let stolen = try Self.seal(AuthFixture.password, to: current, pointer: "/password", operation: login, jti: stolenJTI, device: key)
            let borrowed = try await client.proved(thief, path, jti: stolenJTI, body: ["username": "ada@example.com", "password": stolen])
            #expect(borrowed.status == .badRequest && borrowed.errorField == "password", "another key's proof: \(borrowed.json)")

            // A key given twice: the check and the handler read the same body (written again after
            // one parse), so a plain password cannot hide behind a second key.
            let twice = try await client.provedRaw(key, path,
                                                   #"{"username":"ada@example.com","password":"\#(AuthFixture.password)","password":null}"#)
            #expect(twice.status == .badRequest && twice.login?.sessionToken == nil, "\(twice.json)")
            let notAnObject = try await client.provedRaw(key, path, "[1]")
            #expect(notAnObject.status == .badRequest && notAnObject.errorField == "body", "\(notAnObject.json)")

            // A bound on the work one request can ask for.
            let many = try await client.sealedCall(key, .put, "/v1/profile/mfa-answers") { jti in
                var answers: [String: String] = [:]
                for index in 0...SealedCredential.maximumPerRequest {
                    answers["Question \(index)?"] = try Self.seal("a", to: current, pointer: "/mfaAnswers/Question \(index)?",
                                                                  operation: "updateMFAAnswers", jti: jti, device: key)
                }
                return ["mfaAnswers": answers]
            }
            #expect(many.status == .badRequest && many.errorField?.hasPrefix("mfaAnswers.") == true, "\(many.json)")

            let retiredKey = Components.Schemas.SealKey(keyId: Self.keyID(retired), publicKey: retired.publicKey.x963Representation.base64EncodedString(),
                                                        current: false)
            let toRetired = try await attempt { try Self.seal(AuthFixture.password, to: retiredKey, pointer: "/password", operation: login, jti: $0, device: key) }
            #expect(toRetired.status == .badRequest && toRetired.failure?.id == "seal_key_unknown" && toRetired.errorField == "password",
                    "\(toRetired.json)")
            let previousKey = try #require(settings.keys.first { !$0.current })
            let toPrevious = try await attempt { try Self.seal(AuthFixture.password, to: previousKey, pointer: "/password", operation: login, jti: $0, device: key) }
            #expect(toPrevious.status == .ok, "a previous key opens within its window: \(toPrevious.json)")
        }
    }

    static func keyID(_ key: P256.KeyAgreement.PrivateKey) -> String {
        SHA256.hash(data: key.publicKey.x963Representation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}

extension TestClientProtocol {
    /// A `POST` of the raw `body` proved by `key`, answering a nonce refusal once.
    func provedRaw(_ key: TestDeviceKey, _ path: String, _ body: String) async throws -> JSONAnswer {
        var nonce: String?
        for _ in 0..<2 {
            let answer = try await call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path, nonce: nonce)), raw: body)
            guard answer.failure?.id == "use_dpop_nonce", nonce == nil else { return answer }
            nonce = answer.headers[HTTPField.Name("DPoP-Nonce")!]
        }
        return try await call(.post, path)
    }

    /// A `POST` of `body` under a proof by `key` carrying the given `jti` (one a seal is bound to);
    /// a `use_dpop_nonce` refusal is answered once with a proof carrying the nonce and the same `jti`.
    func proved(_ key: TestDeviceKey, _ path: String, jti: String, body: Any) async throws -> JSONAnswer {
        var nonce: String?
        for _ in 0..<2 {
            let answer = try await call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path, nonce: nonce, jti: jti)), body: body)
            guard answer.failure?.id == "use_dpop_nonce", nonce == nil else { return answer }
            nonce = answer.headers[HTTPField.Name("DPoP-Nonce")!]
        }
        Issue.record("use_dpop_nonce twice")
        return try await call(.post, path)
    }

    /// A call proved by `key` whose body is made for the proof's `jti` (sealed credentials bind
    /// it); a `use_dpop_nonce` refusal is answered once with a new proof and a body made again.
    func sealedCall(_ key: TestDeviceKey, _ method: HTTPRequest.Method, _ path: String, device: String = "device-1",
                    token: String? = nil, body: (String) throws -> Any) async throws -> JSONAnswer {
        var nonce: String?
        for _ in 0..<2 {
            let jti = UUID().uuidString
            let proof = key.proof(method.rawValue, path, token: token, nonce: nonce, jti: jti)
            let answer = try await call(method, path, headers: appHeaders(device: device).with(proof: proof, dpopToken: token),
                                        body: try body(jti))
            guard answer.failure?.id == "use_dpop_nonce", nonce == nil else { return answer }
            nonce = try #require(answer.headers[HTTPField.Name("DPoP-Nonce")!])
        }
        Issue.record("use_dpop_nonce twice")
        return try await call(method, path)
    }
}
