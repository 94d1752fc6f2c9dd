import Foundation
import LatchkeyAPI
import HummingbirdTesting
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

@Suite struct ProfileUpdateTests {
    static func patch(_ client: any TestClientProtocol, _ session: String, _ body: [String: Any]) async throws -> JSONAnswer {
        try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session), body: body)
    }

    /// The wallet's profile (`GET /v1/profile`); throws, failing the test, unless it is a `Customer`.
    static func customer(_ client: any TestClientProtocol, _ session: String) async throws -> Customer {
        let answer = try await client.call(.get, "/v1/profile", headers: appHeaders(session: session))
        return try #require(answer.decoded(Customer.self), "\(answer.status) \(answer.json)")
    }

    @Test(arguments: TestEnvironment.engines)
    func conventionsOfTheSpec(engine: String) async throws {
        let clock = TestClock(start: Date())
        try await withServer(engine: engine, clock: clock) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await Self.patch(client, session, ["externalId": "ext-1", "additionalCustomerInformation":
                                                            ["opt_in_email": "false", "opt_in_sms": "true"]]).status == .ok)
            let first = try await Self.customer(client, session)
            #expect(first.externalId == "ext-1")
            let before = first.lastModifiedDate

            clock.advance(5)
            let update: [String: Any] = ["lastName": "King", "additionalCustomerInformation": ["opt_in_email": "true", "opt_in_sms": NSNull()],
                                         "addressInformation": ["city": "London", "zipCode": "12345"]]
            #expect(try await Self.patch(client, session, update).status == .ok)
            let read = try await client.call(.get, "/v1/profile", headers: appHeaders(session: session))
            let second = try #require(read.decoded(Customer.self), "\(read.json)")
            #expect(second.firstName == "Ada", "omitted: unchanged")
            #expect(second.lastName == "King")
            #expect(second.externalId == nil && !String(decoding: read.data, as: UTF8.self).contains("externalId"), "not sent again: removed")
            #expect(second.additionalCustomerInformation == ["opt_in_email": "true"], "null deletes")
            #expect(second.contactInformation.addressInformation?.city == "London")
            #expect(second.lastModifiedDate != before)

            clock.advance(5)
            #expect(try await Self.patch(client, session, [:]).status == .ok)
            #expect(try await Self.customer(client, session).lastModifiedDate != second.lastModifiedDate,
                    "every update moves lastModifiedDate")
        }
    }

    @Test func refusalsNameTheField() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            _ = try await AuthFixture.enrolledSession(app, client, email: "grace@example.com", device: "device-9")
            let cases: [(Int, String, [String: Any])] = [
                (400, "phone", ["phone": "+15555550100"]),
                (400, "email", ["email": "not-an-email"]),
                (400, "firstName", ["firstName": String(repeating: "x", count: 51)]),
                (400, "addressInformation.zipCode", ["addressInformation": ["zipCode": "123456"]]),
                (400, "password", ["password": "new-password-1"]),
                (400, "mfaAnswers", ["mfaAnswers": ["What was your first job?": "Clerk"]]),
                (416, "email", ["email": "GRACE@example.com"]),
            ]
            for (code, field, body) in cases {
                let answer = try await Self.patch(client, session, body)
                #expect(answer.errorCode == code, "\(field): \(answer.json)")
                #expect(answer.errorField == field, "\(field): \(answer.json)")
            }
            #expect(try await client.call(.patch, "/v1/profile", body: ["lastName": "X"]).errorCode == 403)
            #expect(try await Self.customer(client, session).lastName == "Lovelace", "nothing half-written")
        }
    }

    @Test func emailChangeSendsThePairAndWaitsForVerification() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            // By id: messages of one second are not listed in the order they were written.
            let before = Set(try await app.store.outboxMessages().map(\.id))
            #expect(try await Self.patch(client, session, ["email": "Ada.New@example.com"]).status == .ok)
            let sent = try await app.store.outboxMessages().filter { !before.contains($0.id) }
            #expect(Set(sent.map(\.recipient)) == ["Ada.New@example.com", "ada@example.com"])
            #expect(Set(sent.map(\.template)) == ["email_change_verification", "email_change_notice"])
            #expect(try await Self.customer(client, session).username == "ada@example.com", "not before verification")
            #expect(try await AuthFixture.passwordLogin(client).login?.sessionToken != nil)

            let row = try #require(sent.first { $0.template == "email_change_verification" })
            let link = try #require(app.cipher.open(row)?.data["link"])
            let path = try EmailLink.path(of: link)
            #expect(try await EmailLink.follow(client, path).status == .ok)
            #expect(try await Self.customer(client, session).username == "Ada.New@example.com")
            #expect(try await AuthFixture.passwordLogin(client, email: "ada.new@example.com").login?.sessionToken != nil)
            #expect(try await AuthFixture.passwordLogin(client).errorCode == 401)
            #expect(try await EmailLink.follow(client, path).status == .badRequest, "single use")
        }
    }

    @Test func mfaAnswersInAnUpdateReplaceThemAll() async throws {
        try await withServer { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let answers = ["What was your first job?": "Clerk", "What is your favorite book?": "Dune",
                           "What was your childhood nickname?": "Ace"]
            #expect(try await Self.patch(client, session, ["mfaAnswers": answers]).status == .ok)
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(Set(try await app.store.mfaAnswers(userID: user.id).map(\.question)) == Set(answers.keys))
        }
    }
}
