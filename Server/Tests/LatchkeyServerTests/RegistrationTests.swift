import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct RegistrationTests {
    @Test(arguments: TestEnvironment.engines)
    func registersAndAnswersNonceAndCustomerURI(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(answer.status == .created)
            let nonce = try #require(answer.registration?.nonce)
            #expect(nonce.count >= 43)
            let uri = try #require(answer.registration?.customerUri)
            #expect(uri.hasPrefix("urn:latchkey:customer:"))
            #expect(answer.registration?.message.isEmpty == false)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.emailVerified == false)
            #expect(try await app.hasher.verify("correct-horse-42", against: user.passwordHash ?? ""))
            #expect(try await app.hasher.verify("314159", against: user.passcodeHash ?? ""))
            let answers = try await app.store.mfaAnswers(userID: user.id)
            #expect(answers.count == 3)
            let pet = try #require(answers.first { $0.question == "What was the name of your first pet?" })
            #expect(try await app.hasher.verify("rex", against: pet.answerHash), "answers are case-insensitive by default")
            let token = try await app.store.consumeToken(digest: SecureRandom.digest(nonce), purpose: .registrationNonce, now: Date())
            #expect(token?.deviceID == "device-1")
            #expect(try await app.store.consumeToken(digest: SecureRandom.digest(nonce), purpose: .registrationNonce, now: Date()) == nil)
        }
    }

    @Test func documentedRefusals() async throws {
        try await withServer { _, client in
            let cases: [(Int, Int, String, (inout [String: Any]) -> Void)] = [
                (400, 400, "userProfile.email", { $0["email"] = "nope" }),
                (400, 400, "userProfile.firstName", { $0["firstName"] = String(repeating: "x", count: 51) }),
                (400, 400, "userProfile.lastName", { $0.removeValue(forKey: "lastName") }),
                (400, 400, "userProfile.confirmPassword", { $0["confirmPassword"] = "something-else" }),
                (400, 400, "userProfile.confirmPasscode", { $0["confirmPasscode"] = "271828" }),
                (400, 400, "userProfile.mfaAnswers", { $0["mfaAnswers"] = ["What was the name of your first pet?": "Rex"] }),
                (400, 400, "userProfile.mfaAnswers", { $0["mfaAnswers"] = ["Q1?": "a", "Q2?": "b", "Q3?": "c"] }),
                (400, 400, "userProfile.phone", { $0["phone"] = "+15555550100" }),
                (400, 400, "userProfile.addressInformation.zipCode", { $0["addressInformation"] = ["zipCode": "123456"] }),
                (422, 419, "userProfile.password", { $0["password"] = "short"; $0["confirmPassword"] = "short" }),
                (422, 420, "userProfile.passcode", { $0["passcode"] = "111111"; $0["confirmPasscode"] = "111111" }),
                (422, 420, "userProfile.passcode", { $0["passcode"] = "123456"; $0["confirmPasscode"] = "123456" }),
                (422, 420, "userProfile.passcode", { $0["passcode"] = "12345"; $0["confirmPasscode"] = "12345" }),
                (422, 420, "userProfile.passcode", { $0["passcode"] = "12ab56"; $0["confirmPasscode"] = "12ab56" }),
            ]
            for (http, code, field, change) in cases {
                let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(change: change))
                #expect(Int(answer.status.code) == http, "\(field): \(answer.json)")
                #expect(answer.errorCode == code, "\(field): \(answer.json)")
                #expect(answer.errorField == field, "\(field): \(answer.json)")
            }
        }
    }

    /// The attack: answers of line breaks alone were stored as the hash of the empty answer (the
    /// server compares answers trimmed of line breaks too), so "" answered every question.
    @Test func anAnswerOfLineBreaksIsNoAnswer() async throws {
        try await withServer { _, client in
            let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody {
                $0["mfaAnswers"] = ["What was the name of your first pet?": "\n", "In what city were you born?": "\r\n",
                                    "What is your mother's maiden name?": "\u{2028}"]
            })
            #expect(answer.status == .badRequest && answer.errorField == "userProfile.mfaAnswers", "\(answer.json)")
        }
    }

    @Test func mandatoryQuestionMustBeAnswered() async throws {
        try await withServer(configure: { $0.issuer.mfa.questions[5].isMandatory = true }) { _, client in
            let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(answer.errorCode == 400)
            #expect((answer.failure?.message)?.contains("mandatory") == true)
        }
    }

    /// 416 names a verified wallet's address in any case (an unverified registration holds
    /// nothing: `RegistrationSquattingTests`).
    @Test(arguments: TestEnvironment.engines)
    func emailInUseIsCaseInsensitive(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let created = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(created.status == .created)
            try await AuthFixture.verifyEmail(app, client)
            let again = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "ADA@Example.COM"))
            #expect(again.status == .conflict)
            #expect(again.errorCode == 416)
            #expect(again.errorField == "userProfile.email")
        }
    }

    /// Uniqueness holds under a race: of twenty parallel registrations of a free address with
    /// verification off (so each is a wallet at once), one is created and nineteen are 416.
    @Test(arguments: TestEnvironment.engines)
    func twentyParallelRegistrationsOfOneEmail(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.issuer.emailVerificationRequired = false }) { app, client in
            let statuses = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let email = index.isMultiple(of: 2) ? "race@example.com" : "RACE@example.com"
                        let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: email))
                        return (Int(answer.status.code), answer.errorCode)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1)
            #expect(statuses.filter { $0.0 == 409 && $0.1 == 416 }.count == 19)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "race@example.com") != nil)
        }
    }

    @Test func verificationEmailGoesToTheOutboxAndIsDelivered() async throws {
        try await withServer { app, client in
            let created = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(created.status == .created)
            let queued = try await app.store.outboxMessages()
            #expect(queued.count == 1)
            #expect(queued[0].template == "email_verification")
            #expect(queued[0].sealedPayload?.contains("verify-email") == false)
            try await app.courier.deliverDue()
            let lines = try String(contentsOfFile: app.configuration.courier.path!, encoding: .utf8).split(separator: "\n")
            let message = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
            #expect(message["to"] as? String == "ada@example.com")
            #expect(message["channel"] as? String == "email")
            let link = try #require((message["data"] as? [String: String])?["link"])
            #expect(link.contains("/verify-email?token="))
            #expect(try await app.store.outboxMessage(id: queued[0].id)?.sealedPayload == nil)
        }
    }

    @Test func noVerificationEmailWhenTheIssuerDoesNotRequireIt() async throws {
        try await withServer(configure: { $0.issuer.emailVerificationRequired = false }) { app, client in
            let created = try await client.call(.post, "/v1/enrollment/users", body: registrationBody())
            #expect(created.status == .created)
            #expect(try await app.store.outboxMessages().isEmpty)
            #expect(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com")?.emailVerified == true)
        }
    }

    @Test func databaseFileHoldsNoPlaintextSecrets() async throws {
        let database = try await TestEnvironment.freshDatabase("sqlite")
        let path = String(database.dropFirst("sqlite:".count))
        try await withServer(configure: { $0.database = database }) { app, client in
            let body = registrationBody { profile in
                profile["password"] = "Plain-Secret-Password-9"
                profile["confirmPassword"] = "Plain-Secret-Password-9"
                profile["passcode"] = "864209"
                profile["confirmPasscode"] = "864209"
                profile["mfaAnswers"] = ["What was the name of your first pet?": "Zanzibarquux",
                                         "In what city were you born?": "Quetzalcoatlville",
                                         "What is your mother's maiden name?": "Xylophonique"]
            }
            let answer = try await client.call(.post, "/v1/enrollment/users", body: body)
            let nonce = try #require(answer.registration?.nonce)
            var bytes = Data()
            for suffix in ["", "-wal", "-shm"] { bytes += FileManager.default.contents(atPath: path + suffix) ?? Data() }
            #expect(bytes.count > 0)
            for secret in ["Plain-Secret-Password-9", "864209", "zanzibarquux", "Zanzibarquux", "quetzalcoatlville",
                           "xylophonique", nonce, "verify-email"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) found in the database file")
            }
            #expect(bytes.range(of: Data("ada@example.com".utf8)) != nil, "the check reads the real file")
            _ = app
        }
    }
}
