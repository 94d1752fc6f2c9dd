import Foundation
import LatchkeyAPI
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Stored data is read strictly and engine errors are typed, on every engine: what cannot be read
/// is an error, never a default that changes a decision or a write that wipes data.
@Suite struct HonestStorageTests {
    @Test(arguments: TestEnvironment.engines)
    func aRowThatDoesNotDecodeIsAnErrorNotADefault(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let user = StorageContractTests().user("odd@example.com")
            try await store.createUser(user, answers: [], tokens: [], messages: [])
            let engine = (store as! SQLStore).engine
            try await engine.execute("UPDATE users SET status = 'paused' WHERE id = $1", [.text(user.id)])
            await #expect(throws: StoreError.undecodableRow(column: "status", reason: "unknown value paused")) {
                _ = try await store.user(id: user.id)
            }
            try await engine.execute("UPDATE users SET status = 'active', email_verified = 7 WHERE id = $1", [.text(user.id)])
            await #expect(throws: StoreError.undecodableRow(column: "email_verified", reason: "7 where 0 or 1 is stored")) {
                _ = try await store.user(id: user.id)
            }
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func eachEngineNamesTheUniqueConstraintAndOnlyUniqueOnes(engine: String) async throws {
        try await TestEnvironment.withFreshStore(engine) { store in
            let engine = (store as! SQLStore).engine
            let user = StorageContractTests().user("one@example.com")
            try await store.createUser(user, answers: [], tokens: [], messages: [])
            var twin = StorageContractTests().user("ONE@example.com")
            twin.emailNormalized = user.emailNormalized
            await #expect(throws: StoreError.emailInUse) { try await store.createUser(twin, answers: [], tokens: [], messages: []) }
            let insertSession = "INSERT INTO sessions (digest, user_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, 1, 1, 2)"
            try await engine.execute(insertSession, [.text("d1"), .text(user.id)])
            await #expect(throws: SQLEngineError.uniqueViolation(engine.kind == .postgres ? .other("sessions_pkey") : .other("sessions.digest"))) {
                try await engine.execute(insertSession, [.text("d1"), .text(user.id)])
            }
            // A foreign key violation is not a unique violation (SQLite reports both as "constraint").
            do {
                try await engine.execute(insertSession, [.text("d2"), .text("no-such-user")])
                Issue.record("a session of an unknown user was stored")
            } catch let error as SQLEngineError {
                Issue.record("reported as \(error)")
            } catch {}
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func aStoredProfileThatDoesNotDecodeIsNeverOverwritten(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            let broken = #"{"addressInformation": "#
            try await (app.store as! SQLStore).engine.execute("UPDATE users SET profile_json = $2 WHERE id = $1",
                                                              [.text(user.id), .text(broken)])
            let update = try await ProfileUpdateTests.patch(client, session, ["firstName": "Augusta"])
            #expect(update.status == .internalServerError)
            #expect(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).status == .internalServerError)
            let after = try await (app.store as! SQLStore).engine.query("SELECT profile_json, first_name FROM users WHERE id = $1",
                                                                        [.text(user.id)])
            #expect(after.first?["profile_json"] == .text(broken), "the address and extra information are not wiped")
            #expect(after.first?["first_name"] == .text("Ada"), "nothing is half written")
        }
    }
}

/// Text the database cannot store is refused at the edge, naming the field, on every engine
/// (PostgreSQL's text cannot hold NUL; schemathesis found it answering 500).
@Suite struct NulCharacterTests {
    @Test(arguments: TestEnvironment.engines)
    func aNulCharacterInAnyFieldIsA400NamingIt(engine: String) async throws {
        try await withServer(engine: engine) { _, client in
            let expired = try await client.call(.post, "/v1/enrollment/expired-password", raw: #"""
                {"email": "a\u0000@example.com", "expiredPassword": "x", "newPassword": "y", "confirmNewPassword": "y"}
                """#)
            #expect(expired.status == .badRequest)
            #expect(expired.errorField == "email")
            let login = try await client.call(.post, "/v1/auth/login/password", raw: #"{"username": "ada\u0000@example.com", "password": "pw"}"#)
            #expect(login.status == .badRequest)
            #expect(login.errorField == "username")
            let nested = try await client.call(.post, "/v1/enrollment/users", raw: #"{"userProfile": {"firstName": "A\u0000"}}"#)
            #expect(nested.status == .badRequest)
            #expect(nested.errorField == "userProfile.firstName")
            let answers = try await client.call(.post, "/v1/enrollment/users", raw: #"{"userProfile": {"mfaAnswers": {"Pet\u0000?": "x"}}}"#)
            #expect(answers.errorField == "userProfile.mfaAnswers")
            let kratos = try await client.call(.post, "/identity/verification/flow/phone", raw: #"""
                {"phoneNumber": "+43\u000099999999", "phoneType": "PRIMARY", "flowId": "x", "flowType": "REGISTRATION"}
                """#)
            #expect(kratos.status == .badRequest)
            #expect((kratos.failure?.reason)?.hasPrefix("phoneNumber") == true)
            // Secrets are only hashed: any character is theirs, and a wrong one is just wrong.
            let secret = try await client.call(.post, "/v1/auth/login/password", raw: #"{"username": "ada@example.com", "password": "p\u0000w"}"#)
            #expect(secret.status == .unauthorized)
        }
    }
}
