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

/// Recovery codes over HTTP: ten codes shown once and kept only as password hashes; each links a
/// new phone once, its use audited and noticed to the customer; new codes void the old ones.
@Suite(.serialized) struct RecoveryCodeTests {
    /// Makes the codes from a fresh login; answers them and the session's headers.
    static func generate(_ app: LatchkeyApplication, _ client: any TestClientProtocol) async throws -> (codes: [String], headers: HTTPFields) {
        let headers = appHeaders(session: try await AuthFixture.enrolledSession(app, client))
        let made = try await client.call(.post, "/v1/factors/recovery-codes", headers: headers)
        #expect(made.status == .created, "\(made.json)")
        let body = try #require(made.decoded(Components.Schemas.RecoveryCodes.self))
        return (body.codes, headers)
    }

    /// A code links a new phone once: the customer is told (with the codes left) and the trail
    /// records it; the same code from another phone is refused. The codes are hashed at rest.
    @Test(arguments: TestEnvironment.engines)
    func aCodeLinksANewPhoneOnce(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let (codes, _) = try await Self.generate(app, client)
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.wholeMatch(of: /[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}/) != nil },
                    "\(codes)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let stored = try await app.store.unusedRecoveryCodes(userID: user.id)
            #expect(stored.count == 10 && stored.allSatisfy { $0.codeHash.hasPrefix("scrypt$") })
            let plain = codes.flatMap { [$0, $0.replacingOccurrences(of: "-", with: "")] }
            #expect(!stored.contains { row in plain.contains { row.codeHash.contains($0) } }, "no code in plain form")

            let prompt = try await OneTimeCodes.promptFactors(client, device: "new-phone")
            #expect(prompt.factors == ["question", "recoveryCode"])
            // Typed as people do: upper case, spaces for hyphens.
            let typed = codes[3].uppercased().replacingOccurrences(of: "-", with: " ")
            let linked = try await OneTimeCodes.answer(client, prompt.challenge, ["recoveryCode": typed], device: "new-phone")
            #expect(linked.status == .ok && linked.login?.sessionToken != nil, "\(linked.json)")
            #expect(try await app.store.unusedRecoveryCodes(userID: user.id).count == 9)

            let again = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "other-phone").challenge,
                                                      ["recoveryCode": codes[3]], device: "other-phone")
            #expect(again.status == .unauthorized, "a used code: \(again.json)")

            let notices = try await app.store.outboxMessages().filter { $0.template == "security_notice" && $0.recipient == "ada@example.com" }
                .compactMap { app.cipher.open($0) }
            #expect(notices.compactMap { $0.data["change"] }.sorted() == ["recovery code used", "recovery codes"])
            let used = try #require(notices.first { $0.data["change"] == "recovery code used" })
            #expect(used.body.contains("9 left") && !codes.contains { used.body.contains($0) }, "\(used.body)")
            let events = try await app.store.auditEvents(userID: user.id, limit: 200)
            #expect(events.contains { $0.type == .factorUsed && $0.details["kind"] == "recoveryCode" && $0.details["remaining"] == "9" })
            #expect(events.contains { $0.type == .loginFailed && $0.reason == "wrong_recovery_code" })
            #expect(!events.contains { event in codes.contains { event.details.values.joined().contains($0) } }, "no code in the trail")
        }
    }

    /// Attack: one code sent twice at once (a double tap, or two replicas): one answer links.
    @Test(arguments: TestEnvironment.engines)
    func aCodeSentTwiceAtOnceLinksOnce(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let (codes, _) = try await Self.generate(app, client)
            let first = try await OneTimeCodes.promptFactors(client, device: "phone-a")
            let second = try await OneTimeCodes.promptFactors(client, device: "phone-b")
            async let a = OneTimeCodes.answer(client, first.challenge, ["recoveryCode": codes[0]], device: "phone-a")
            async let b = OneTimeCodes.answer(client, second.challenge, ["recoveryCode": codes[0]], device: "phone-b")
            let statuses = try await [a, b].map(\.status.code).sorted()
            #expect(statuses == [200, 401])
        }
    }

    /// New codes void the old ones, used or not; removed codes answer nothing, and the prompt no
    /// longer offers them.
    @Test(arguments: TestEnvironment.engines)
    func newCodesVoidTheOld(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let (old, headers) = try await Self.generate(app, client)
            let made = try await client.call(.post, "/v1/factors/recovery-codes", headers: headers)
            let new = try #require(made.decoded(Components.Schemas.RecoveryCodes.self)).codes
            #expect(Set(old).isDisjoint(with: new))
            let stale = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "phone-a").challenge,
                                                      ["recoveryCode": old[1]], device: "phone-a")
            #expect(stale.status == .unauthorized, "\(stale.json)")
            let fresh = try await OneTimeCodes.answer(client, try await OneTimeCodes.promptFactors(client, device: "phone-b").challenge,
                                                      ["recoveryCode": new[1]], device: "phone-b")
            #expect(fresh.status == .ok, "\(fresh.json)")

            #expect(try await client.call(.delete, "/v1/factors/recovery-codes", headers: headers).status == .noContent)
            #expect(try await client.call(.delete, "/v1/factors/recovery-codes", headers: headers).failure?.id == "factor_not_enrolled")
            let prompt = try await OneTimeCodes.promptFactors(client, device: "phone-c")
            #expect(prompt.factors == ["question"])
            let removed = try await OneTimeCodes.answer(client, prompt.challenge, ["recoveryCode": new[2]], device: "phone-c")
            #expect(removed.status == .unauthorized)
        }
    }

    /// Attack: guessing codes. Wrong codes count toward the smart lockout of unlinked devices;
    /// each costs one hash whatever it names (a malformed code, an unknown position, a used one).
    @Test(arguments: TestEnvironment.engines)
    func guessesAreBounded(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock) { app, client in
            let (codes, _) = try await Self.generate(app, client)
            for guess in ["nonsense", "0000-0000-0000", String(codes[4].dropLast()) + (codes[4].hasSuffix("x") ? "y" : "x"), codes[5].uppercased() + "a", "zzzz-zzzz-zzzz"] {
                let prompt = try await OneTimeCodes.promptFactors(client, device: "stranger")
                let before = app.hasher.gate.completedHashes
                let answer = try await OneTimeCodes.answer(client, prompt.challenge, ["recoveryCode": guess], device: "stranger")
                #expect(answer.status == .unauthorized, "\(guess): \(answer.json)")
                #expect(app.hasher.gate.completedHashes - before == 1, "\(guess) costs one hash")
                clock.advance(61)
            }
            #expect(try await AuthFixture.passwordLogin(client, device: "stranger").errorCode == 401, "unlinked devices are locked out")
            clock.advance(901)
            let prompt = try await OneTimeCodes.promptFactors(client, device: "stranger")
            #expect(try await OneTimeCodes.answer(client, prompt.challenge, ["recoveryCode": codes[6]], device: "stranger").status == .ok)
        }
    }
}
