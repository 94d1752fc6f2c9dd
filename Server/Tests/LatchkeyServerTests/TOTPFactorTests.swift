import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The authenticator app (RFC 6238) as a wallet customer uses it over HTTP: enrolled from a
/// privileged session, confirmed by a first code, then answering the MFA prompt of a new phone;
/// each step accepted once across replicas, wrong codes bounded by the lockouts.
@Suite(.serialized) struct TOTPFactorTests {
    /// RFC 6238 Appendix B's SHA-1 vectors at the six digits authenticator apps show (their last
    /// six), and RFC 4226 Appendix D's HOTP values, which are the codes of steps 0 to 9. The
    /// eight-digit vectors of all three hashes are `ConsoleTests`'.
    @Test func rfcVectorsAtSixDigits() {
        let totp = TOTPCheck(secret: "12345678901234567890")
        let rfc6238: [Int64: String] = [59: "94287082", 1_111_111_109: "07081804", 1_111_111_111: "14050471",
                                        1_234_567_890: "89005924", 2_000_000_000: "69279037", 20_000_000_000: "65353130"]
        for (time, code) in rfc6238 {
            #expect(totp.code(step: time / 30) == String(code.suffix(6)), "T = \(time)")
            #expect(totp.matchingStep(String(code.suffix(6)), now: Date(timeIntervalSince1970: TimeInterval(time))) == time / 30)
        }
        let rfc4226 = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, code) in rfc4226.enumerated() { #expect(totp.code(step: Int64(counter)) == code, "counter \(counter)") }
    }

    /// Enrolment answers an `otpauth://` URI and the secret for typing in; the app counts only
    /// once a first code confirms it, and then answers the prompt of a new phone, which it links.
    @Test(arguments: TestEnvironment.engines)
    func anAuthenticatorAppLinksANewPhone(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock) { app, client in
            let headers = appHeaders(session: try await AuthFixture.enrolledSession(app, client))
            let started = try await client.call(.post, "/v1/factors/totp", headers: headers)
            #expect(started.status == .created, "\(started.json)")
            let enrollment = try #require(started.decoded(Components.Schemas.TOTPEnrollment.self))
            #expect(enrollment.uri.hasPrefix("otpauth://totp/"))
            #expect(enrollment.uri.contains("ada@example.com") && enrollment.uri.contains("issuer="))
            let secret = try #require(OneTimeCodes.secret(of: enrollment.uri))
            let uriSecret = try #require(OneTimeCodes.uriSecret(enrollment.uri))
            #expect(ConsoleTests.base32Decoded(enrollment.secret) == ConsoleTests.base32Decoded(uriSecret), "the typed secret is the URI's")

            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let stored = try #require(try await app.store.totpFactor(userID: user.id))
            #expect(stored.sealedSecret.hasPrefix("enc1:") && !stored.sealedSecret.contains(secret), "sealed at rest")
            #expect(try await OneTimeCodes.promptFactors(client, device: "new-phone").factors == ["question"],
                    "a pending app is no factor yet")

            let wrong = try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": "000000"])
            #expect(wrong.status == .badRequest && wrong.errorField == "code", "\(wrong.json)")
            let first = OneTimeCodes.code(secret, clock)
            #expect(try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": first]).status == .noContent)
            let again = try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": first])
            #expect(again.status == .conflict && again.failure?.id == "factor_already_enrolled", "\(again.json)")
            let restart = try await client.call(.post, "/v1/factors/totp", headers: headers)
            #expect(restart.status == .conflict && restart.failure?.id == "factor_already_enrolled", "\(restart.json)")

            let prompt = try await OneTimeCodes.promptFactors(client, device: "new-phone")
            #expect(prompt.factors == ["totp", "question"])
            let spent = try await OneTimeCodes.answer(client, prompt.challenge, ["totpCode": first], device: "new-phone")
            #expect(spent.status == .unauthorized, "the confirming code's step is spent: \(spent.json)")

            clock.advance(30)
            let next = OneTimeCodes.code(secret, clock)
            let linked = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "new-phone").challenge,
                                                      ["totpCode": next], device: "new-phone")
            #expect(linked.status == .ok && linked.login?.sessionToken != nil, "\(linked.json)")
            #expect(try await app.store.device(userID: user.id, deviceID: "new-phone") != nil, "the new phone is linked")

            let notices = try await app.store.outboxMessages().filter { $0.template == "security_notice" && $0.recipient == "ada@example.com" }
                .compactMap { app.cipher.open($0)?.data["change"] }
            #expect(notices == ["authenticator app"])
            let events = try await app.store.auditEvents(userID: user.id, limit: 200)
            #expect(events.contains { $0.type == .factorEnrolled && $0.details["kind"] == "totp" })
            #expect(events.contains { $0.type == .factorUsed && $0.details["kind"] == "totp" && $0.deviceID == "new-phone" })
            #expect(!events.contains { $0.details.values.contains(first) || $0.details.values.contains(next) }, "no code in the trail")
        }
    }

    /// Attack: a code seen over the shoulder (or in a proxy's log) is replayed at another prompt
    /// within its 90 seconds. The step is spent by the first answer.
    @Test(arguments: TestEnvironment.engines)
    func aCodeIsAcceptedOnce(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock) { app, client in
            let secret = try await OneTimeCodes.enrolTOTP(app, client, clock)
            clock.advance(60)
            let code = OneTimeCodes.code(secret, clock)
            let first = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "phone-a").challenge,
                                                     ["totpCode": code], device: "phone-a")
            #expect(first.status == .ok, "\(first.json)")
            let replayed = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "phone-b").challenge,
                                                        ["totpCode": code], device: "phone-b")
            #expect(replayed.status == .unauthorized, "\(replayed.json)")
            clock.advance(-30)
            let earlier = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "phone-b").challenge,
                                                       ["totpCode": OneTimeCodes.code(secret, clock)], device: "phone-b")
            #expect(earlier.status == .unauthorized, "no step before the last accepted one, though never used: \(earlier.json)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(try await app.store.auditEvents(userID: user.id, limit: 200).contains { $0.reason == "replayed_totp_code" })
        }
    }

    /// Attack: the same code sent to two replicas (two servers on one database), one after the
    /// other and both at once: one answer links a phone, the other is refused.
    @Test(arguments: TestEnvironment.engines)
    func aCodeIsAcceptedOnceAcrossReplicas(engine: String) async throws {
        let clock = TestClock(start: Date())
        let database = try await TestEnvironment.freshDatabase(engine)
        let second = try await TestEnvironment.application(try TestEnvironment.configuration(database: database), now: { clock.now })
        try await withServer(clock: clock, configure: { $0.database = database }) { app, client in
            let secret = try await OneTimeCodes.enrolTOTP(app, client, clock)
            try await second.application.test(.router) { other in
                for round in 0..<2 {
                    clock.advance(30)
                    let code = OneTimeCodes.code(secret, clock)
                    let here = try await OneTimeCodes.promptFactors(client, device: "here-\(round)")
                    let there = try await OneTimeCodes.promptFactors(other, device: "there-\(round)")
                    let answers: [JSONAnswer]
                    if round == 0 {
                        answers = [try await OneTimeCodes.answer(client, here.challenge, ["totpCode": code], device: "here-\(round)"),
                                   try await OneTimeCodes.answer(other, there.challenge, ["totpCode": code], device: "there-\(round)")]
                    } else {
                        async let a = OneTimeCodes.answer(client, here.challenge, ["totpCode": code], device: "here-\(round)")
                        async let b = OneTimeCodes.answer(other, there.challenge, ["totpCode": code], device: "there-\(round)")
                        answers = try await [a, b]
                    }
                    #expect(answers.map(\.status.code).sorted() == [200, 401], "round \(round): \(answers.map(\.json))")
                }
            }
        }
        try await second.store.close()
    }

    /// Attack: guessing codes. At the prompt wrong codes count toward the smart lockout of
    /// unlinked devices like wrong answers (the owner's phone is untouched); at confirmation like
    /// a wrong current credential, up to the wallet's lockout.
    @Test(arguments: TestEnvironment.engines)
    func wrongCodesAreBounded(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock) { app, client in
            let secret = try await OneTimeCodes.enrolTOTP(app, client, clock)
            clock.advance(30)
            for guess in 0..<5 {
                let prompt = try await OneTimeCodes.promptFactors(client, device: "stranger")
                let wrong = OneTimeCodes.wrongCode(secret, clock, guess)
                #expect(try await OneTimeCodes.answer(client, prompt.challenge, ["totpCode": wrong], device: "stranger").status == .unauthorized)
                clock.advance(61)
            }
            #expect(try await AuthFixture.passwordLogin(client, device: "stranger").errorCode == 401,
                    "unlinked devices are locked out: not even a prompt")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil, "the owner's phone logs in")
            clock.advance(901)
            let prompt = try await OneTimeCodes.promptFactors(client, device: "stranger")
            #expect(try await OneTimeCodes.answer(client, prompt.challenge, ["totpCode": OneTimeCodes.code(secret, clock)],
                                                  device: "stranger").status == .ok, "after the lockout the right code links")
        }
        try await withServer(engine: engine, clock: clock) { app, client in
            let headers = appHeaders(session: try await AuthFixture.enrolledSession(app, client))
            let started = try await client.call(.post, "/v1/factors/totp", headers: headers)
            let enrollment = try #require(started.decoded(Components.Schemas.TOTPEnrollment.self), "\(started.json)")
            let secret = try #require(OneTimeCodes.secret(of: enrollment.uri))
            var statuses: [Int] = []
            for guess in 0..<5 {
                let wrong = OneTimeCodes.wrongCode(secret, clock, guess)
                statuses.append(try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": wrong])
                    .status.code)
            }
            #expect(statuses == [400, 400, 400, 400, 423], "the wallet's lockout (walletThreshold 5)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.status == .deactivated)
        }
    }

    /// The routes answer 404 `factor_not_offered` where the issuer does not offer the app, need a
    /// recent login, and keep the last factor that answers the prompt where one is required.
    @Test(arguments: TestEnvironment.engines)
    func theIssuersRulesHold(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            $0.issuer.factors.enrol = [.question, .passkey, .recoveryCode]
            $0.issuer.factors.unknownDevice = [.question, .passkey, .recoveryCode]
            $0.issuer.factors.stepUp = [.password, .pin, .question, .passkey, .recoveryCode]
        }) { app, client in
            let headers = appHeaders(session: try await AuthFixture.enrolledSession(app, client))
            for (method, path) in [(HTTPRequest.Method.post, "/v1/factors/totp"), (.delete, "/v1/factors/totp")] {
                let answer = try await client.call(method, path, headers: headers)
                #expect(answer.status == .notFound && answer.failure?.id == "factor_not_offered", "\(method) \(path): \(answer.json)")
            }
            let confirm = try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": "123456"])
            #expect(confirm.failure?.id == "factor_not_offered")
        }
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: { $0.issuer.factors.unknownDevice = [.totp, .recoveryCode] }) { app, client in
            let nonce = try await AuthFixture.nonceSession(app, client)
            let everyday = try await client.call(.post, "/v1/factors/totp", headers: appHeaders(session: nonce))
            #expect(everyday.status == .forbidden, "a session without a recent login: \(everyday.json)")
            let headers = appHeaders(session: try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken))
            let none = try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": "123456"])
            #expect(none.status == .notFound && none.failure?.id == "factor_not_enrolled", "\(none.json)")
            _ = try await OneTimeCodes.enrolTOTP(app, client, clock, login: false, headers: headers)
            let last = try await client.call(.delete, "/v1/factors/totp", headers: headers)
            #expect(last.status == .conflict && last.failure?.id == "last_factor", "\(last.json)")
            #expect(try await client.call(.post, "/v1/factors/recovery-codes", headers: headers).status == .created)
            #expect(try await client.call(.delete, "/v1/factors/totp", headers: headers).status == .noContent)
            #expect(try await client.call(.delete, "/v1/factors/totp", headers: headers).failure?.id == "factor_not_enrolled")
            #expect(try await client.call(.delete, "/v1/factors/recovery-codes", headers: headers).failure?.id == "last_factor")
        }
    }
}

/// Steps of the one-time factors' tests: enrolling the app as its owner does and answering
/// prompts of new phones.
enum OneTimeCodes {
    /// Enrols and confirms an authenticator app for `ada@example.com` (logging in first unless
    /// `login` is false); answers the secret as the app keeps it.
    static func enrolTOTP(_ app: LatchkeyApplication, _ client: any TestClientProtocol, _ clock: TestClock, login: Bool = true,
                          headers given: HTTPFields? = nil) async throws -> String {
        let headers = login ? appHeaders(session: try await AuthFixture.enrolledSession(app, client)) : try #require(given)
        let started = try await client.call(.post, "/v1/factors/totp", headers: headers)
        let enrollment = try #require(started.decoded(Components.Schemas.TOTPEnrollment.self), "\(started.json)")
        let secret = try #require(Self.secret(of: enrollment.uri))
        let confirmed = try await client.call(.post, "/v1/factors/totp/confirmation", headers: headers, body: ["code": code(secret, clock)])
        #expect(confirmed.status == .noContent, "\(confirmed.json)")
        return secret
    }

    /// The code an authenticator app shows at the clock's time.
    static func code(_ secret: String, _ clock: TestClock) -> String {
        TOTPCheck(secret: secret).code(step: TOTPCheck.step(of: clock.now))
    }

    /// A code that is not the current one (`offset` tells guesses apart).
    static func wrongCode(_ secret: String, _ clock: TestClock, _ offset: Int) -> String {
        String(format: "%06d", (Int(code(secret, clock))! + 1 + offset) % 1_000_000)
    }

    /// The `secret` parameter of an `otpauth://` URI.
    static func uriSecret(_ uri: String) -> String? {
        URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value
    }

    /// The key an authenticator app reads from the URI (its base32 `secret`), as `TOTPCheck` takes it.
    static func secret(of uri: String) -> String? {
        uriSecret(uri).flatMap(ConsoleTests.base32Decoded)
    }

    /// Logs in with the password from `device`, which is not linked: the prompt's challenge and factors.
    static func promptFactors(_ client: any TestClientProtocol, device: String) async throws -> (challenge: String, factors: [String]) {
        let login = try await AuthFixture.passwordLogin(client, device: device)
        let token = try #require(login.login?.mfaToken, "\(login.json)")
        return (token.challengeToken, token.factors.map(\.rawValue))
    }

    /// Answers the prompt of `challenge` from `device` with one factor's proof.
    static func answer(_ client: any TestClientProtocol, _ challenge: String, _ proof: [String: String], device: String) async throws
        -> JSONAnswer {
        try await client.call(.post, "/v1/auth/mfa", headers: appHeaders(device: device),
                              body: proof.merging(["challengeToken": challenge]) { $1 })
    }
}
