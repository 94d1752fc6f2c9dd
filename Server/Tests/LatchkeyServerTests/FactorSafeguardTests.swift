import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The safeguards around changing second factors, over HTTP on both engines: an operator's lock
/// stops every change, the last-factor rule holds against concurrent removals, a recovery code is
/// spent only as the code that was checked, codes all used never block their removal, passkey
/// names are bounded, and a usernameless passkey login must say whose passkey it is.
@Suite(.serialized) struct FactorSafeguardTests {
    /// A wallet an operator locked changes none of its factors: registering, renaming and
    /// removing a passkey, confirming and removing an authenticator app, removing recovery codes
    /// are each 424 `account_locked`, and nothing changed.
    @Test(arguments: TestEnvironment.engines)
    func anOperatorLockStopsFactorChanges(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock, configure: PasskeyFixture.configure) { app, client in
            let ada = try await PasskeyFixture.adaWithPasskey(app, client)
            let headers = appHeaders(session: ada.session)
            let passkey = try #require(try await client.call(.get, "/v1/passkeys", headers: headers)
                .decoded(Components.Schemas.PasskeyList.self)?.passkeys.first)
            let started = try await client.call(.post, "/v1/factors/totp", headers: headers)
            let enrollment = try #require(started.decoded(Components.Schemas.TOTPEnrollment.self), "\(started.json)")
            let secret = try #require(OneTimeCodes.secret(of: enrollment.uri))
            #expect(try await client.call(.post, "/v1/factors/recovery-codes", headers: headers).status == .created)
            let options = try await client.call(.post, "/v1/passkeys/registration-options", headers: headers)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            try await app.store.setLocked(userID: user.id, locked: true)

            let made = ada.authenticator.create(PasskeyFixture.publicKey(options))
            let calls: [(String, HTTPRequest.Method, String, [String: Any]?)] = [
                ("register", .post, "/v1/passkeys", ["credential": made.json]),
                ("rename", .patch, "/v1/passkeys/\(passkey.id)", ["name": "Other"]),
                ("remove passkey", .delete, "/v1/passkeys/\(passkey.id)", nil),
                ("confirm app", .post, "/v1/factors/totp/confirmation", ["code": OneTimeCodes.code(secret, clock)]),
                ("remove app", .delete, "/v1/factors/totp", nil),
                ("remove codes", .delete, "/v1/factors/recovery-codes", nil),
            ]
            for (name, method, path, body) in calls {
                let answer = try await client.call(method, path, headers: headers, body: body)
                #expect(answer.errorCode == 424 && answer.failure?.id == "account_locked", "\(name): \(answer.json)")
            }
            let factors = try await app.store.factorInventory(userID: user.id)
            #expect(factors.factors.map(\.kind) == [.question, .passkey, .recoveryCode], "nothing added or removed")
            #expect(factors.factor(id: passkey.id)?.name == passkey.name)
            #expect(try await app.store.totpFactor(userID: user.id)?.confirmedAt == nil, "the app stays pending")
        }
    }

    /// Attack: two removals at once that each leave a prompt factor but together none (the
    /// issuer accepts only passkeys at the prompt, the wallet has two). One removal is decided
    /// after the other has committed: one succeeds, the other is 409 `last_factor`. Twenty
    /// rounds, so an unserialised check loses the race at least once.
    @Test(arguments: TestEnvironment.engines)
    func concurrentRemovalsKeepAPromptFactor(engine: String) async throws {
        try await withServer(engine: engine, configure: {
            PasskeyFixture.configure(&$0)
            $0.issuer.factors.unknownDevice = [.passkey]
        }) { app, client in
            let ada = try await PasskeyFixture.adaWithPasskey(app, client)
            let headers = appHeaders(session: ada.session)
            for round in 0..<20 {
                let added = try await PasskeyFixture.register(client, session: ada.session, with: ada.authenticator)
                #expect(added.answer.status == .created, "\(added.answer.json)")
                let ids = try #require(try await client.call(.get, "/v1/passkeys", headers: headers)
                    .decoded(Components.Schemas.PasskeyList.self)).passkeys.map(\.id)
                try #require(ids.count == 2, "round \(round): \(ids)")
                async let first = client.call(.delete, "/v1/passkeys/\(ids[0])", headers: headers)
                async let second = client.call(.delete, "/v1/passkeys/\(ids[1])", headers: headers)
                let answers = try await [first, second]
                #expect(answers.map(\.status.code).sorted() == [204, 409], "round \(round): \(answers.map(\.json))")
                #expect(answers.contains { $0.failure?.id == "last_factor" })
                let left = try await client.call(.get, "/v1/passkeys", headers: headers).decoded(Components.Schemas.PasskeyList.self)
                try #require(left?.passkeys.count == 1, "round \(round): the wallet keeps one passkey")
            }
        }
    }

    /// A recovery code checked before new codes replaced it does not spend the new code at its
    /// position: the spend names the hash that was checked.
    @Test(arguments: TestEnvironment.engines)
    func aReplacedCodeSpendsNothing(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let (_, headers) = try await RecoveryCodeTests.generate(app, client)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let checked = try #require(try await app.store.unusedRecoveryCodes(userID: user.id).first)
            #expect(try await client.call(.post, "/v1/factors/recovery-codes", headers: headers).status == .created)
            let replacement = try #require(try await app.store.unusedRecoveryCodes(userID: user.id).first { $0.position == checked.position })
            #expect(replacement.codeHash != checked.codeHash)
            #expect(try await !app.store.useRecoveryCode(userID: user.id, position: checked.position, codeHash: checked.codeHash,
                                                          now: Date(), messages: []))
            #expect(try await app.store.unusedRecoveryCodes(userID: user.id).count == 10, "the new code is unused")
            #expect(try await app.store.useRecoveryCode(userID: user.id, position: checked.position, codeHash: replacement.codeHash,
                                                         now: Date(), messages: []))
        }
    }

    /// Recovery codes all used are no factor: removing them takes nothing away, so it is allowed
    /// even when they were the wallet's only kind of prompt factor (they go with 204, not 409).
    /// While one is unused they stay (409 `last_factor`).
    @Test(arguments: TestEnvironment.engines)
    func usedUpCodesCanBeRemoved(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.issuer.factors.unknownDevice = [.recoveryCode] }) { app, client in
            let (_, headers) = try await RecoveryCodeTests.generate(app, client)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let unused = try await app.store.unusedRecoveryCodes(userID: user.id)
            for code in unused.dropLast() {
                #expect(try await app.store.useRecoveryCode(userID: user.id, position: code.position, codeHash: code.codeHash,
                                                             now: Date(), messages: []))
            }
            let kept = try await client.call(.delete, "/v1/factors/recovery-codes", headers: headers)
            #expect(kept.status == .conflict && kept.failure?.id == "last_factor", "one code is unused: \(kept.json)")
            let last = try #require(unused.last)
            #expect(try await app.store.useRecoveryCode(userID: user.id, position: last.position, codeHash: last.codeHash,
                                                         now: Date(), messages: []))
            let removed = try await client.call(.delete, "/v1/factors/recovery-codes", headers: headers)
            #expect(removed.status == .noContent, "\(removed.json)")
            #expect(try await app.store.factorInventory(userID: user.id).factor(id: EnrolledFactor.recoveryCodesID) == nil)
        }
    }

    /// A passkey's name, at registration and in a rename, is trimmed and must have 1 to 64
    /// characters and no control character: else 400 naming `name`, and nothing registered or
    /// renamed.
    @Test(arguments: TestEnvironment.engines)
    func passkeyNamesAreBounded(engine: String) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let headers = appHeaders(session: session)
            let authenticator = PasskeyFixture.authenticator()
            for name in ["", "   ", "Ada\u{7}s phone", "Line\nbreak", String(repeating: "x", count: 65)] {
                let refused = try await PasskeyFixture.register(client, session: session, with: authenticator, name: name).answer
                #expect(refused.status == .badRequest && refused.errorField == "name", "\(name.debugDescription): \(refused.json)")
            }
            #expect(try await client.call(.get, "/v1/passkeys", headers: headers)
                .decoded(Components.Schemas.PasskeyList.self)?.passkeys.isEmpty == true)
            let longest = String(repeating: "é", count: 64)
            let registered = try await PasskeyFixture.register(client, session: session, with: authenticator, name: " \(longest) ").answer
            let passkey = try #require(registered.decoded(Components.Schemas.Passkey.self), "\(registered.json)")
            #expect(passkey.name == longest)
            for name in ["", String(repeating: "x", count: 65), "Tab\there"] {
                let refused = try await client.call(.patch, "/v1/passkeys/\(passkey.id)", headers: headers, body: ["name": name])
                #expect(refused.status == .badRequest && refused.errorField == "name", "\(name.debugDescription): \(refused.json)")
            }
            let list = try await client.call(.get, "/v1/passkeys", headers: headers).decoded(Components.Schemas.PasskeyList.self)
            #expect(list?.passkeys.map(\.name) == [longest])
        }
    }

    /// Attack: a usernameless login whose assertion leaves out the user handle (WebAuthn L3 §7.2
    /// step 6 requires it when no credential was named) is refused like any failed login; the
    /// same passkey with its handle signs in.
    @Test(arguments: TestEnvironment.engines)
    func aUsernamelessLoginNeedsTheUserHandle(engine: String) async throws {
        try await withServer(engine: engine, configure: PasskeyFixture.configure) { app, client in
            let ada = try await PasskeyFixture.adaWithPasskey(app, client)
            let refused = try await PasskeyFixture.login(client) { options in
                var assertion = ada.authenticator.get(options, with: ada.credential)
                var response = assertion["response"] as? [String: Any] ?? [:]
                response["userHandle"] = nil
                assertion["response"] = response
                return assertion
            }
            PasskeyFixture.expectRefused(refused, "no user handle")
            #expect(try await !PasskeyFixture.adaDevices(app).contains("phone-2"))
            let accepted = try await PasskeyFixture.login(client) { ada.authenticator.get($0, with: ada.credential) }
            #expect(accepted.status == .ok && accepted.login?.sessionToken != nil, "\(accepted.json)")
        }
    }

    /// The relying party id is a domain of two labels or more (or localhost) and the origins'
    /// hosts must end in it at a dot: `example` alone and `allet.example` for wallet.example are
    /// refused; localhost for a local server passes.
    @Test func theRelyingPartyIsADomainSuffix() throws {
        for yaml in ["publicURL: \"https://wallet.example\"\nissuer:\n  passkeys: { rpID: example }",
                     "publicURL: \"https://wallet.example\"\nissuer:\n  passkeys: { rpID: allet.example }",
                     "issuer:\n  passkeys: { rpID: com, origins: [\"https://wallet.com\"] }"] {
            #expect { _ = try ServerConfiguration.parse(yaml: yaml) } throws: { ($0 as? ConfigurationError)?.key == "issuer.passkeys.rpID" }
        }
        _ = try ServerConfiguration.parse(yaml: "publicURL: \"http://localhost:8080\"\nissuer:\n  passkeys: { rpID: localhost }")
    }
}
