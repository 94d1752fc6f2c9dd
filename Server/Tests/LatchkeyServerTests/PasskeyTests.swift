import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Passkeys over HTTP on both engines: registration from a privileged session, the list, names and
/// removal, the discoverable login (a new phone linked with no prompt, the session bound to the
/// proven key) and the MFA prompt answered by a passkey.
@Suite(.serialized) struct PasskeyTests {
    /// The creation options name the relying party, a user handle that is not the wallet's id,
    /// ES256 and EdDSA, a discoverable credential with user verification; `none` and `packed`
    /// self attestation register; the second registration excludes the first passkey; each
    /// addition and removal sends the owner a security notice.
    @Test(arguments: TestEnvironment.engines)
    func registerListRenameRemove(engine: String) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let headers = appHeaders(session: session)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let options = PasskeyFixture.publicKey(try await client.call(.post, "/v1/passkeys/registration-options", headers: headers))
            #expect((options["rp"] as? [String: Any])?["id"] as? String == PasskeyFixture.rpID)
            let handle = SoftwareAuthenticator.data((options["user"] as? [String: Any])?["id"] as? String ?? "")
            #expect(handle.count == 32 && handle != Data(user.id.utf8))
            #expect((options["user"] as? [String: Any])?["name"] as? String == "ada@example.com")
            #expect((options["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-8, -7])
            let selection = options["authenticatorSelection"] as? [String: Any] ?? [:]
            #expect(selection["residentKey"] as? String == "required" && selection["userVerification"] as? String == "required")
            #expect(options["attestation"] as? String == "none")

            let authenticator = PasskeyFixture.authenticator()
            let made = authenticator.create(options)
            let first = try await client.call(.post, "/v1/passkeys", headers: headers, body: ["credential": made.json, "name": "Ada's phone"])
            #expect(first.status == .created, "\(first.json)")
            let passkey = try #require(first.decoded(Components.Schemas.Passkey.self))
            #expect(passkey.id.hasPrefix("pk_") && passkey.name == "Ada's phone" && passkey.backupEligible && passkey.backedUp)
            #expect(passkey.transports == ["internal", "hybrid"])

            let again = PasskeyFixture.publicKey(try await client.call(.post, "/v1/passkeys/registration-options", headers: headers))
            #expect((again["excludeCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                    == [SoftwareAuthenticator.b64(made.credential.id)])
            let packed = try await PasskeyFixture.register(client, session: session, with: authenticator, algorithm: .edDSA, format: "packed")
            #expect(packed.answer.status == .created, "\(packed.answer.json)")
            let second = try #require(packed.answer.decoded(Components.Schemas.Passkey.self))
            #expect(second.name.hasPrefix("Passkey "))

            let list = try #require(try await client.call(.get, "/v1/passkeys", headers: headers).decoded(Components.Schemas.PasskeyList.self))
            #expect(list.passkeys.map(\.id) == [passkey.id, second.id])
            let renamed = try await client.call(.patch, "/v1/passkeys/\(second.id)", headers: headers, body: ["name": "  Laptop  "])
            #expect(renamed.decoded(Components.Schemas.Passkey.self)?.name == "Laptop", "\(renamed.json)")
            let unknown = try await client.call(.patch, "/v1/passkeys/pk_unknown", headers: headers, body: ["name": "X"])
            #expect(unknown.status == .notFound && unknown.failure?.id == "factor_not_enrolled" && unknown.errorField == "passkeyId")

            #expect(try await client.call(.delete, "/v1/passkeys/\(passkey.id)", headers: headers).status == .noContent)
            let left = try await client.call(.get, "/v1/passkeys", headers: headers).decoded(Components.Schemas.PasskeyList.self)
            #expect(left?.passkeys.map(\.id) == [second.id])
            #expect(try await client.call(.delete, "/v1/passkeys/\(passkey.id)", headers: headers).failure?.id == "factor_not_enrolled")
            let notices = try await app.store.outboxMessages().filter { $0.template == "security_notice" && $0.recipient == "ada@example.com" }
            #expect(notices.count == 3, "two added, one removed")
        }
    }

    /// A wallet whose only prompt factor is its passkey (the issuer accepts only passkeys there)
    /// cannot remove it while the issuer requires one: 409 `last_factor`, nothing removed.
    @Test(arguments: TestEnvironment.engines)
    func theLastPromptFactorStays(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            PasskeyFixture.configure(&$0)
            $0.issuer.factors.unknownDevice = [.passkey]
        }) { app, client in
            let ada = try await PasskeyFixture.adaWithPasskey(app, client)
            let headers = appHeaders(session: ada.session)
            let id = try #require(try await client.call(.get, "/v1/passkeys", headers: headers)
                .decoded(Components.Schemas.PasskeyList.self)?.passkeys.first?.id)
            let refused = try await client.call(.delete, "/v1/passkeys/\(id)", headers: headers)
            #expect(refused.status == .conflict && refused.failure?.id == "last_factor", "\(refused.json)")
            #expect(try await client.call(.get, "/v1/passkeys", headers: headers).decoded(Components.Schemas.PasskeyList.self)?.passkeys.count == 1)
        }
    }

    /// A new phone signs in with the passkey alone: no username, no prompt; the phone is linked and
    /// the session is bound to the key its DPoP proofs proved.
    @Test(arguments: TestEnvironment.engines)
    func aDiscoverableLoginLinksANewPhone(engine: String) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let oldPhone = TestDeviceKey()
            let session = try await AuthFixture.keyEnrolledSession(app, client, key: oldPhone)
            let options = try await client.dpopCall(oldPhone, .post, "/v1/passkeys/registration-options", token: session)
            let authenticator = PasskeyFixture.authenticator()
            let made = authenticator.create(PasskeyFixture.publicKey(options))
            let registered = try await client.dpopCall(oldPhone, .post, "/v1/passkeys", token: session, body: ["credential": made.json])
            #expect(registered.status == .created, "\(registered.json)")

            let newPhone = TestDeviceKey()
            let login = try await client.dpopCall(newPhone, .post, "/v1/auth/login/passkey/options", device: "phone-2")
            let request = PasskeyFixture.publicKey(login)
            #expect(request["allowCredentials"] == nil && request["rpId"] as? String == PasskeyFixture.rpID)
            #expect(request["userVerification"] as? String == "required")
            let assertion = authenticator.get(request, with: made.credential)
            let answer = try await client.dpopCall(newPhone, .post, "/v1/auth/login/passkey", device: "phone-2", body: ["credential": assertion])
            #expect(answer.status == .ok && answer.login?.tokenType == .dPoP, "\(answer.json)")
            let token = try #require(answer.login?.sessionToken)
            #expect(try await client.dpopCall(newPhone, .get, "/v1/auth/session", device: "phone-2", token: token).status == .ok)
            #expect(try await client.dpopCall(oldPhone, .get, "/v1/auth/session", token: token).status == .unauthorized,
                    "the session is bound to the new phone's key")
            #expect(try await PasskeyFixture.adaDevices(app).contains("jkt:" + newPhone.thumbprint))
        }
    }

    /// A password login from a new phone is prompted with the passkey among the factors (first)
    /// and its request options; the passkey's assertion answers the prompt and links the phone.
    @Test(arguments: TestEnvironment.engines)
    func aPasskeyAnswersTheMFAPrompt(engine: String) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let ada = try await PasskeyFixture.adaWithPasskey(app, client)
            let prompt = try await AuthFixture.passwordLogin(client, device: "phone-2")
            let mfa = try #require(prompt.login?.mfaToken, "\(prompt.json)")
            #expect(mfa.factors.first == .passkey && mfa.factors.contains(.question))
            let options = try #require(prompt.json["mfaToken"] as? [String: Any])["passkeyOptions"] as? [String: Any] ?? [:]
            #expect((options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                    == [SoftwareAuthenticator.b64(ada.credential.id)])
            let assertion = ada.authenticator.get(options, with: ada.credential)
            let answer = try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: "phone-2"),
                                               body: ["challengeToken": mfa.challengeToken, "passkey": assertion])
            #expect(answer.status == .ok && answer.login?.sessionToken != nil, "\(answer.json)")
            #expect(try await PasskeyFixture.adaDevices(app).contains("phone-2"))
        }
    }

    /// Issuers associate their apps with the domain: Apple's `webcredentials` apps and Android's
    /// `get_login_creds` apps, each 404 until configured.
    @Test func theWellKnownDocumentsNameTheApps() async throws {
        try await withServer { _, client in
            let apple = try await client.call(.get, "/.well-known/apple-app-site-association")
            let android = try await client.call(.get, "/.well-known/assetlinks.json")
            #expect(apple.status == .notFound && android.status == .notFound)
        }
        let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        try await withServer(configure: {
            $0.issuer.passkeys.appleAppIDs = ["ABCDE12345.com.example.wallet"]
            $0.issuer.passkeys.android = [.init(package: "com.example.wallet", sha256CertFingerprints: [fingerprint])]
        }) { _, client in
            let apple = try await client.call(.get, "/.well-known/apple-app-site-association")
            #expect(apple.status == .ok && apple.headers[.contentType] == "application/json")
            #expect((apple.json["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.wallet"])
            let android = try await client.call(.get, "/.well-known/assetlinks.json")
            let statements = try #require(try JSONSerialization.jsonObject(with: android.data) as? [[String: Any]])
            #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.get_login_creds"])
            let target = statements.first?["target"] as? [String: Any] ?? [:]
            #expect(target["namespace"] as? String == "android_app" && target["package_name"] as? String == "com.example.wallet")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [fingerprint])
        }
    }

    /// An issuer that does not enrol passkeys answers every passkey route 404 `factor_not_offered`;
    /// a response field that is not base64url is a 400 naming it.
    @Test func refusalsNameTheirCause() async throws {
        try await withServer(configure: { $0.issuer.factors.enrol = [.question, .totp, .recoveryCode]
            $0.issuer.factors.unknownDevice = [.question] }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            for (method, path) in [(HTTPRequest.Method.post, "/v1/passkeys/registration-options"), (.get, "/v1/passkeys"),
                                   (.post, "/v1/auth/login/passkey/options")] {
                let answer = try await client.call(method, path, headers: appHeaders(session: session))
                #expect(answer.status == .notFound && answer.failure?.id == "factor_not_offered", "\(path): \(answer.json)")
            }
        }
        try await withServer(configure: PasskeyFixture.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            var made = PasskeyFixture.authenticator().create(PasskeyFixture.publicKey(
                try await client.call(.post, "/v1/passkeys/registration-options", headers: appHeaders(session: session)))).json
            made["response"] = ["clientDataJSON": "e30", "attestationObject": "not base64url!"]
            let answer = try await client.call(.post, "/v1/passkeys", headers: appHeaders(session: session), body: ["credential": made])
            #expect(answer.status == .badRequest && answer.errorField == "credential.response.attestationObject", "\(answer.json)")
        }
    }

    /// The relying party's defaults: publicURL's host and origin, the issuer's name, and an
    /// Android app's origin from each signing certificate's fingerprint.
    @Test func theRelyingPartyDefaultsToThePublicURL() throws {
        var settings = PasskeySettings()
        let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        settings.android = [.init(package: "com.example.wallet", sha256CertFingerprints: [fingerprint])]
        let party = settings.relyingParty(publicURL: "https://login.wallet.example:443/base", issuerName: "Example")
        #expect(party.id == "login.wallet.example" && party.name == "Example")
        #expect(party.origins == ["https://login.wallet.example",
                                  "android:apk-key-hash:" + SoftwareAuthenticator.b64(Data(0..<32))])
        settings.android[0].sha256CertFingerprints = ["AB:CD"]
        #expect(throws: ConfigurationError.self) { try settings.validate(key: "issuer.passkeys") }
        settings.android = []
        settings.challengeSeconds = 5
        #expect(throws: ConfigurationError.self) { try settings.validate(key: "issuer.passkeys") }
    }
}
