import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The issuer's factor rules (`issuer.factors`): what `config check` refuses, what the wallet API
/// shows of them and of a wallet's factors, what the MFA prompt offers, and step-up by policy.
@Suite(.serialized) struct FactorRulesTests {
    /// Each contradiction is refused with the key at fault.
    @Test(arguments: [
        ("issuer:\n  factors: { enrol: [question, totp, totp] }", "issuer.factors.enrol"),
        ("issuer:\n  factors: { enrol: [passkey, totp], unknownDevice: [passkey, totp], stepUp: [password] }", "issuer.factors.enrol"),
        ("issuer:\n  factors: { enrol: [question, totp], unknownDevice: [question, passkey] }", "issuer.factors.unknownDevice"),
        ("issuer:\n  factors: { enrol: [question, totp], unknownDevice: [totp], stepUp: [password, recoveryCode] }", "issuer.factors.stepUp"),
        ("issuer:\n  factors: { stepUp: [] }", "issuer.factors.stepUp"),
        ("issuer:\n  factors: { stepUp: [pin, pin] }", "issuer.factors.stepUp"),
        ("issuer:\n  factors: { unknownDevice: [], required: true }", "issuer.factors.required"),
        ("publicURL: \"https://wallet.example.com\"\nissuer:\n  passkeys: { rpID: example.org }", "issuer.passkeys.rpID"),
        ("issuer:\n  passkeys: { rpID: example.com, origins: [\"https://wallet.example.com\", \"https://evil.example.net\"] }",
         "issuer.passkeys.rpID"),
    ])
    func contradictionsAreRefused(_ yaml: String, _ key: String) {
        do {
            _ = try ServerConfiguration.parse(yaml: yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        } catch { Issue.record("unexpected \(error)") }
    }

    /// Consistent rules pass: a questions-only issuer, an issuer that takes no questions at the
    /// prompt, a relying party that is a suffix of the origins' hosts, and a mismatched relying
    /// party while passkeys cannot be enrolled.
    @Test(arguments: [
        "issuer:\n  factors: { enrol: [question], unknownDevice: [question], stepUp: [password, pin, question] }",
        "issuer:\n  factors: { unknownDevice: [passkey, totp, recoveryCode] }",
        "issuer:\n  factors: { unknownDevice: [], required: false }",
        "issuer:\n  passkeys: { rpID: example.com, origins: [\"https://wallet.example.com\", \"android:apk-key-hash:abc\"] }",
        "issuer:\n  factors: { enrol: [question, totp], unknownDevice: [question, totp], stepUp: [password, totp] }\n"
            + "  passkeys: { rpID: example.org }",
    ])
    func consistentRulesPass(_ yaml: String) throws {
        _ = try ServerConfiguration.parse(yaml: yaml)
    }

    /// `latchkey config check` says which key is wrong and fails.
    @Test func configCheckRefusesAContradiction() async throws {
        let cli = try LatchkeyProcess(settings: "issuer:\n  factors: { enrol: [question], unknownDevice: [question, totp] }\n")
        let (status, output, errors) = try await cli.checkConfiguration()
        #expect(status != 0, "\(output)")
        #expect((output + errors).contains("issuer.factors.unknownDevice") && (output + errors).contains("totp"), "\(output) \(errors)")
    }

    /// `GET /v1/enrollment/factors` is public and says the rules as configured; the relying party
    /// is there only while passkeys may be enrolled.
    @Test(arguments: TestEnvironment.engines)
    func thePolicyIsPublished(engine: String) async throws {
        try await withServer(engine: engine) { _, client in
            let answer = try await client.call(.get, "/v1/enrollment/factors", headers: appHeaders(device: "device-1"))
            #expect(answer.status == .ok, "\(answer.json)")
            #expect(answer.json["enrollable"] as? [String] == ["question", "passkey", "totp", "recoveryCode"])
            #expect(answer.json["unknownDevice"] as? [String] == ["question", "passkey", "totp", "recoveryCode"])
            #expect(answer.json["stepUp"] as? [String] == ["password", "pin", "question", "passkey", "totp", "recoveryCode"])
            #expect(answer.json["required"] as? Bool == true)
            let party = try #require(answer.json["passkeys"] as? [String: Any], "\(answer.json)")
            #expect(party["rpId"] as? String == "127.0.0.1" || party["rpId"] as? String == "localhost", "\(party)")
            #expect(party["rpName"] as? String != nil)
        }
        try await withServer(engine: engine, configure: {
            $0.issuer.factors.enrol = [.question, .totp]
            $0.issuer.factors.unknownDevice = [.totp]
            $0.issuer.factors.stepUp = [.password, .totp]
            $0.issuer.factors.required = false
        }) { _, client in
            let answer = try await client.call(.get, "/v1/enrollment/factors", headers: appHeaders(device: "device-1"))
            #expect(answer.json["enrollable"] as? [String] == ["question", "totp"])
            #expect(answer.json["unknownDevice"] as? [String] == ["totp"])
            #expect(answer.json["stepUp"] as? [String] == ["password", "totp"])
            #expect(answer.json["required"] as? Bool == false)
            #expect(answer.json["passkeys"] == nil, "no relying party where passkeys cannot be enrolled: \(answer.json)")
        }
    }

    /// `GET /v1/factors` lists the session's wallet's factors and the rules: a new wallet has its
    /// questions; recovery codes appear with the number unused. Without a session it is 401.
    @Test(arguments: TestEnvironment.engines)
    func theWalletListsItsFactors(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            #expect(try await client.call(.get, "/v1/factors", headers: appHeaders(device: "device-1")).status == .unauthorized)
            let session = try await AuthFixture.enrolledSession(app, client)
            let headers = appHeaders(session: session)
            let first = try await client.call(.get, "/v1/factors", headers: headers)
            #expect(first.status == .ok, "\(first.json)")
            let factors = try #require(first.json["factors"] as? [[String: Any]])
            #expect(factors.map { $0["id"] as? String } == ["questions"])
            #expect(factors.first?["kind"] as? String == "question" && factors.first?["createdAt"] is String)
            #expect((first.json["policy"] as? [String: Any])?["required"] as? Bool == true)

            let codes = try await client.call(.post, "/v1/factors/recovery-codes", headers: headers)
            #expect(codes.status == .created, "\(codes.json)")
            let listed = try #require(try await client.call(.get, "/v1/factors", headers: headers).json["factors"] as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == ["questions", "recovery-codes"])
            #expect(listed.last?["kind"] as? String == "recoveryCode" && listed.last?["remaining"] as? Int == 10, "\(listed)")
        }
    }

    /// A questions-only wallet's prompt is the spec's: `factors: ["question"]` and the question.
    /// An issuer that takes no questions at the prompt refuses that wallet's new phone (401) until
    /// it enrols a factor it takes; the prompt then offers that factor and no question.
    @Test(arguments: TestEnvironment.engines)
    func thePromptOffersWhatTheIssuerTakes(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let prompt = try #require(try await AuthFixture.passwordLogin(client, device: "device-2").login?.mfaToken)
            #expect(prompt.factors == [.question])
            #expect(prompt.mfaSecretQuestion != nil)
        }
        try await withServer(engine: engine, configure: { $0.issuer.factors.unknownDevice = [.passkey, .totp, .recoveryCode] }) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let refused = try await AuthFixture.passwordLogin(client, device: "device-2")
            #expect(refused.status == .unauthorized, "nothing to prompt with: \(refused.json)")
            #expect(try await client.call(.post, "/v1/factors/recovery-codes", headers: appHeaders(session: session)).status == .created)
            let answer = try await AuthFixture.passwordLogin(client, device: "device-2")
            let token = try #require(answer.json["mfaToken"] as? [String: Any], "\(answer.json)")
            #expect(token["factors"] as? [String] == ["recoveryCode"])
            #expect(token["mfaSecretQuestion"] == nil, "no question where the issuer takes none: \(token)")
        }
    }

    /// The MFA answer carries exactly one factor's proof: none, or two, is a 400 naming the fields,
    /// and the challenge is not spent by it (the right answer still links the phone).
    @Test(arguments: TestEnvironment.engines)
    func anAnswerCarriesExactlyOneProof(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let prompt = try #require(try await AuthFixture.passwordLogin(client, device: "device-2").login?.mfaToken)
            let question = try #require(prompt.mfaSecretQuestion)
            let answer = try #require(AuthFixture.answers[question])
            let headers = appHeaders(device: "device-2")
            let none = try await client.call(.post, "/v1/auth/mfa", headers: headers, body: ["challengeToken": prompt.challengeToken])
            #expect(none.status == .badRequest && none.failure?.field == "mfaSecretAnswer", "\(none.json)")
            let two = try await client.call(.post, "/v1/auth/mfa", headers: headers,
                                            body: ["challengeToken": prompt.challengeToken, "mfaSecretAnswer": answer, "totpCode": "123456"])
            #expect(two.status == .badRequest && two.failure?.field == "mfaSecretAnswer, totpCode", "\(two.json)")
            let right = try await client.call(.post, "/v1/auth/mfa", headers: headers,
                                              body: ["challengeToken": prompt.challengeToken, "mfaSecretAnswer": answer])
            #expect(right.status == .ok && right.login?.sessionToken != nil, "\(right.json)")
        }
    }

    /// Attack: the Kratos-compatible login cannot prompt, so it must not link a new phone of a
    /// wallet that has a second factor, even one the issuer does not take at the prompt: with
    /// questions left out of `unknownDevice`, a questions-only wallet's password alone would
    /// otherwise link the phone and open a (privileged) password session there.
    @Test(arguments: TestEnvironment.engines)
    func theKratosLoginDoesNotSkipTheFactors(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.issuer.factors.unknownDevice = [.passkey, .totp, .recoveryCode] }) { app, client in
            _ = try await AuthFixture.enrolledSession(app, client)
            let flow = try #require(try await client.call(.get, "/a/self-service/login/api", headers: [:])
                .decoded(Components.Schemas.SelfServiceFlow.self)?.id)
            var headers = SignupFixture.json
            headers[HTTPField.Name("X-Device-ID")!] = "kratos-phone"
            let answer = try await client.call(.post, "/a/self-service/login?flow=\(flow)", headers: headers,
                                               body: ["method": "password", "identifier": "ada@example.com", "password": AuthFixture.password])
            #expect(answer.status != .ok, "the password alone opened a session: \(answer.json)")
            #expect(answer.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken == nil)
        }
    }

    /// Attack: a PIN (a short secret, on the phone) changes what guards the account. With `pin`
    /// left out of `issuer.factors.stepUp`, a PIN login's session is not privileged: a PIN change
    /// answers 403 `session_refresh_required`; a password login's session may. By default a PIN
    /// login is privileged, as before the factor rules.
    @Test(arguments: TestEnvironment.engines)
    func stepUpFollowsThePolicy(engine: String) async throws {
        let change = ["oldPasscode": AuthFixture.pin, "newPasscode": "271828", "confirmNewPasscode": "271828"]
        try await withServer(engine: engine, configure: {
            $0.issuer.factors.stepUp = [.password, .question, .passkey, .totp, .recoveryCode]
        }) { app, client in
            _ = try await AuthFixture.nonceSession(app, client)
            let pin = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(device: "device-1"), body: ["pin": AuthFixture.pin])
            let session = try #require(pin.login?.sessionToken, "\(pin.json)")
            let refused = try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: session), body: change)
            #expect(refused.status == .forbidden && refused.failure?.id == "session_refresh_required", "\(refused.json)")
            let password = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            #expect(try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: password), body: change).status == .ok)
        }
        try await withServer(engine: engine) { app, client in
            _ = try await AuthFixture.nonceSession(app, client)
            let pin = try await client.call(.post, "/v1/auth/login/pin", headers: appHeaders(device: "device-1"), body: ["pin": AuthFixture.pin])
            let session = try #require(pin.login?.sessionToken, "\(pin.json)")
            #expect(try await client.call(.put, "/v1/profile/passcode", headers: appHeaders(session: session), body: change).status == .ok)
        }
    }
}
