import Foundation
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// A field the issuer marks `reverificationRequired` changes only once the wallet's
/// owner confirms it from a link sent to the wallet's email address, as the email does.
@Suite struct ProfileReverificationTests {
    static let issuerFields = """
        issuer:
          fields:
            userProfile:
              LAST_NAME: { reverificationRequired: true }
            addressInformation:
              CITY: { reverificationRequired: true }
            additionalCustomerInformation:
              card_ref: { reverificationRequired: true }
              payout_ref: { reverificationRequired: true }
        """

    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.issuer.fields = try! ServerConfiguration.parse(yaml: issuerFields).issuer.fields
    }

    static func patch(_ client: any TestClientProtocol, _ session: String, _ body: [String: Any]) async throws -> JSONAnswer {
        try await ProfileUpdateTests.patch(client, session, body)
    }

    /// The path of the confirmation link sent to `email` since the messages `earlier` (by id:
    /// messages of one second are not listed in the order they were written).
    static func link(_ app: LatchkeyApplication, to email: String = "ada@example.com", after earlier: Set<String> = [])
        async throws -> String {
        let row = try #require(try await app.store.outboxMessages().last {
            $0.recipient == email && $0.template == "profile_change_confirmation" && !earlier.contains($0.id)
        })
        let link = try #require(app.cipher.open(row)?.data["link"])
        return String(link[try #require(link.range(of: "/confirm-change")).lowerBound...])
    }

    @Test(arguments: TestEnvironment.engines)
    func aMarkedChangeWaitsForTheOwnersConfirmation(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await Self.patch(client, session, ["addressInformation": ["city": "Bath"],
                                                           "additionalCustomerInformation": ["payout_ref": "P-1"]]).status == .ok)
            let earlier = Set(try await app.store.outboxMessages().map(\.id))
            #expect(try await EmailLink.follow(client, try await Self.link(app)).status == .ok)

            let update: [String: Any] = [
                "firstName": "Augusta", "lastName": "King", "addressInformation": ["city": "London", "zipCode": "12345"],
                "additionalCustomerInformation": ["card_ref": "PAN-REF-7720", "payout_ref": NSNull(), "opt_in": "true"],
            ]
            let answer = try await Self.patch(client, session, update)
            #expect(answer.status == .ok, "\(answer.json)")
            #expect(answer.decoded(Components.Schemas.ProfileUpdateResponse.self)?.pendingVerification == [
                "additionalCustomerInformation.card_ref", "additionalCustomerInformation.payout_ref", "addressInformation.city", "lastName",
            ])
            var customer = try await ProfileUpdateTests.customer(client, session)
            #expect(customer.firstName == "Augusta", "an unmarked field changes at once")
            #expect(customer.lastName == "Lovelace", "a marked one waits")
            #expect(customer.contactInformation.addressInformation == AddressInformation(city: "Bath", zipCode: "12345"),
                    "the sent address applies, but for the marked city")
            #expect(customer.additionalCustomerInformation == ["opt_in": "true", "payout_ref": "P-1"],
                    "a marked removal waits too")

            // The held values are in the database only encrypted, and the link's page changes nothing.
            let path = try await Self.link(app, after: earlier)
            let token = String(path[path.range(of: "token=")!.upperBound...])
            let record = try #require(try await app.store.token(digest: SecureRandom.digest(token), purpose: .profileChange, now: Date()))
            #expect(!(record.data ?? "").contains("PAN-REF") && !(record.data ?? "").contains("King"), "\(record.data ?? "")")
            let opened = try await PortalBrowser(client).get(path)
            #expect(opened.status == .ok && opened.html.contains("Last Name") && opened.html.contains("card_ref"))
            #expect(try await ProfileUpdateTests.customer(client, session).lastName == "Lovelace")

            let confirmed = try await EmailLink.follow(client, path)
            #expect(confirmed.status == .ok && confirmed.text(id: "title") == "Profile changed", "\(confirmed.html)")
            customer = try await ProfileUpdateTests.customer(client, session)
            #expect(customer.firstName == "Augusta" && customer.lastName == "King")
            #expect(customer.contactInformation.addressInformation == AddressInformation(city: "London", zipCode: "12345"))
            #expect(customer.additionalCustomerInformation == ["opt_in": "true", "card_ref": "PAN-REF-7720"])
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(try await EmailLink.follow(client, path).status == .badRequest, "single use")

            let events = try await app.store.auditEvents(userID: user.id, limit: 100).map(\.type)
            #expect(events.contains(.profileChangeRequested) && events.contains(.profileChanged))
        }
    }

    @Test func aNewerChangeVoidsTheEarlierLinkAndAnUnchangedValueIsNotHeld() async throws {
        try await withServer(configure: Self.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            let same = try await Self.patch(client, session, ["lastName": "Lovelace", "firstName": "Ada"])
            #expect(same.status == .ok && same.decoded(Components.Schemas.ProfileUpdateResponse.self)?.pendingVerification == [], "\(same.json)")

            #expect(try await Self.patch(client, session, ["lastName": "King"]).status == .ok)
            let first = try await Self.link(app)
            let earlier = Set(try await app.store.outboxMessages().map(\.id))
            #expect(try await Self.patch(client, session, ["lastName": "Byron"]).status == .ok)
            let second = try await Self.link(app, after: earlier)
            #expect(first != second)
            #expect(try await EmailLink.follow(client, first).status == .badRequest, "replaced by the newer change")
            #expect(try await EmailLink.follow(client, second).status == .ok)
            #expect(try await ProfileUpdateTests.customer(client, session).lastName == "Byron")
        }
    }

    /// A wallet without an address the link could prove (a phone sign-up without email) cannot
    /// change a marked field, and nothing of the update is written.
    @Test func noVerifiedAddressNoChange() async throws {
        try await withServer(configure: { configuration in
            Self.configure(&configuration)
            SignupFixture.configure(&configuration)
            configuration.publicURL = TestDeviceKey.base
        }) { app, client in
            let flow = try await SignupFixture.verifiedFlow(app, client)
            let registered = try await SignupFixture.finish(client, flow: flow, headers: appHeaders(device: "phone-1"))
            let token = try #require(registered.decoded(Components.Schemas.SuccessfulNativeLogin.self)?.sessionToken)
            let device = TestDeviceKey()
            let keyPath = "/identity/pki/client/certificates"
            #expect(try await client.call(.put, keyPath, headers: appHeaders(session: token).with(proof: device.proof("PUT", keyPath)),
                                          body: ["publicKey": device.key.publicKey.pemRepresentation]).status == .ok)
            let refused = try await client.dpopCall(device, .patch, "/v1/profile", token: token,
                                                    body: ["firstName": "Augusta", "lastName": "King"])
            #expect(refused.status == .forbidden && refused.failure?.id == "email_not_verified", "\(refused.json)")
            #expect(refused.errorField == "lastName")
            let read = try await client.dpopCall(device, .get, "/v1/profile", token: token)
            let customer = try #require(read.decoded(Customer.self), "\(read.json)")
            #expect(customer.firstName == "Pay User", "nothing half-written")
            let userID = customer.customerIdentification
            let user = try #require(try await app.store.user(id: userID))
            let events = try await app.store.auditEvents(userID: user.id, limit: 100).map(\.type)
            #expect(!events.contains(.profileChangeRequested), "no event of a refused update: \(events)")
        }
    }

    /// A link sent to the wallet's address confirms nothing once the address is another: whoever
    /// changed the email to theirs cannot confirm a change after the owner took the wallet back.
    @Test func aHeldChangeDiesWithTheAddressItWasSentTo() async throws {
        try await withServer(configure: Self.configure) { app, client in
            let session = try await AuthFixture.enrolledSession(app, client)
            #expect(try await Self.patch(client, session, ["lastName": "King"]).status == .ok)
            let held = try await Self.link(app)
            #expect(try await Self.patch(client, session, ["email": "thief@example.com"]).status == .ok)
            let verification = try await EmailLink.path(app, "email_change_verification", to: "thief@example.com")
            #expect(try await EmailLink.follow(client, verification).status == .ok)
            #expect(try await EmailLink.follow(client, held).status == .badRequest, "sent to the old address")
            #expect(try await ProfileUpdateTests.customer(client, session).lastName == "Lovelace")

            // And a change held from a session the owner then throws out (revert) is void too.
            let session2 = try await AuthFixture.passwordLogin(client, email: "thief@example.com").login?.sessionToken
            let earlier = Set(try await app.store.outboxMessages().map(\.id))
            #expect(try await Self.patch(client, try #require(session2), ["lastName": "Byron"]).status == .ok)
            let second = try await Self.link(app, to: "thief@example.com", after: earlier)
            let revert = try await EmailLink.path(app, "email_change_notice", to: "ada@example.com")
            #expect(try await EmailLink.follow(client, revert).status == .ok)
            #expect(try await EmailLink.follow(client, second).status == .badRequest, "void with the revert")
        }
    }

    /// The rules are read again when the link is opened: a change they no longer allow is refused.
    @Test func aHeldChangeMeetsTheRulesOfItsConfirmation() async throws {
        let database = try await TestEnvironment.freshDatabase("sqlite")
        var before = try TestEnvironment.configuration(database: database)
        Self.configure(&before)
        var after = before
        var tightened = FieldOverride()
        tightened.reverificationRequired = true
        tightened.maxLength = 5
        after.issuer.fields["userProfile"]?["LAST_NAME"] = tightened
        let first = try await TestEnvironment.application(before)
        let path = try await first.application.test(.router) { client in
            let session = try await AuthFixture.enrolledSession(first, client)
            #expect(try await Self.patch(client, session, ["lastName": "Babbage-King"]).status == .ok)
            return try await Self.link(first)
        }
        try await first.store.close()
        let second = try await TestEnvironment.application(after)
        try await second.application.test(.router) { client in
            let page = try await EmailLink.follow(client, path)
            #expect(page.status == .conflict && page.html.contains("at most 5"), "\(page.html)")
            let user = try #require(try await second.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(user.lastName == "Lovelace")
        }
        try await second.store.close()
    }

    @Test func theEmailChangeIsAlwaysVerified() throws {
        for group in ["userProfile", "contactInformation"] {
            let yaml = "issuer:\n  fields:\n    \(group):\n      EMAIL: { reverificationRequired: false }\n"
            #expect {
                try ServerConfiguration.parse(yaml: yaml).issuer.fieldMetadata()
            } throws: { ($0 as? ConfigurationError)?.key == "issuer.fields.\(group).EMAIL.reverificationRequired" }
        }
    }
}
