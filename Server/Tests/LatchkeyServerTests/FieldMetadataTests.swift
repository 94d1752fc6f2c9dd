import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The issuer changes the spec's default field metadata (`PDMetaData`) and defines
/// its own additional customer information keys; the served metadata says so and registration and
/// updates enforce it, by the rules of `LatchkeyCore` the SDK uses too.
@Suite struct FieldMetadataTests {
    static let issuerFields = """
        issuer:
          fields:
            userProfile:
              FIRST_NAME: { maxLength: 12, name: Given name }
              EXTERNAL_ID: { required: true, regex: "EX-[0-9]{4}" }
            addressInformation:
              ZIP_CODE: { maxLength: 10, regex: "[0-9]{5}(-[0-9]{4})?", additionalDataValidations: [] }
              COUNTRY: { defaultValue: PT }
              CITY: { required: true }
            additionalCustomerInformation:
              loyalty_id: { name: Loyalty number, required: true, minLength: 6, maxLength: 8, regex: "[0-9]+", order: 1 }
              tier: { defaultValue: basic, updatesAllowed: false, order: 2 }
        """

    static func configure(_ configuration: inout ServerConfiguration) {
        let parsed = try! ServerConfiguration.parse(yaml: issuerFields)
        configuration.issuer.fields = parsed.issuer.fields
    }

    static func body(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
        registrationBody { profile in
            profile["externalId"] = "EX-1234"
            profile["addressInformation"] = ["zipCode": "10001-2345", "city": "Lisbon"]
            profile["additionalCustomerInformation"] = ["loyalty_id": "123456"]
            change(&profile)
        }
    }

    @Test(arguments: TestEnvironment.engines)
    func theIssuersMetadataIsServedAndEnforced(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { app, client in
            let served = try #require(try await client.call(.get, "/v1/enrollment/profile-metadata").decoded(ProfileMetadata.self))
            let first = try #require(ProfileMetadata.field("FIRST_NAME", in: served.userProfile))
            #expect(first.maxLength == 12 && first.name == "Given name" && first.required, "the spec's other defaults stay")
            #expect(served.additionalCustomerInformation.map(\.key) == ["loyalty_id", "tier"])
            #expect(ProfileMetadata.field("ZIP_CODE", in: served.addressInformation)?.regex == "[0-9]{5}(-[0-9]{4})?")

            for (change, field) in [
                ({ (p: inout [String: Any]) in p["additionalCustomerInformation"] = [:] as [String: String] },
                 "userProfile.additionalCustomerInformation.loyalty_id"),
                ({ (p: inout [String: Any]) in p["additionalCustomerInformation"] = ["loyalty_id": "12ab56"] },
                 "userProfile.additionalCustomerInformation.loyalty_id"),
                ({ (p: inout [String: Any]) in p["externalId"] = "1234" }, "userProfile.externalId"),
                ({ (p: inout [String: Any]) in p.removeValue(forKey: "externalId") }, "userProfile.externalId"),
                ({ (p: inout [String: Any]) in p["firstName"] = "Augusta Adaline" }, "userProfile.firstName"),
                ({ (p: inout [String: Any]) in p["addressInformation"] = ["zipCode": "1000", "city": "Lisbon"] },
                 "userProfile.addressInformation.zipCode"),
                ({ (p: inout [String: Any]) in p.removeValue(forKey: "addressInformation") }, "userProfile.addressInformation.city"),
                ({ (p: inout [String: Any]) in p["lastName"] = "hpke1.k.AAAAAAAA.BBBBBBBB" }, "userProfile.lastName"),
            ] as [((inout [String: Any]) -> Void, String)] {
                let refused = try await client.call(.post, "/v1/enrollment/users", body: Self.body(change))
                #expect(refused.status == .badRequest && refused.errorField == field, "\(field): \(refused.json)")
            }

            let nonce = try await client.call(.post, "/v1/enrollment/users", body: Self.body { _ in })
            #expect(nonce.status == .created, "a ZIP+4 the default refused is this issuer's: \(nonce.json)")
            try await AuthFixture.verifyEmail(app, client)
            let login = try await client.call(.post, "/v1/auth/login/nonce", body: ["nonce": try #require(nonce.registration?.nonce)])
            let session = try #require(login.login?.sessionToken)
            let customer = try #require(try await client.call(.get, "/v1/profile", headers: appHeaders(session: session))
                .decoded(Customer.self))
            #expect(customer.additionalCustomerInformation?["tier"] == "basic" && customer.contactInformation.addressInformation?.country == "PT",
                    "defaults fill what was not entered: \(customer)")

            // Updates: a required key is not removed, one that cannot be changed is not changed.
            let removed = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                                raw: #"{"externalId": "EX-1234", "additionalCustomerInformation": {"loyalty_id": null}}"#)
            #expect(removed.status == .badRequest && removed.errorField == "additionalCustomerInformation.loyalty_id", "\(removed.json)")
            for value in ["gold", ""] {
                let tier = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                                 body: ["externalId": "EX-1234", "additionalCustomerInformation": ["tier": value]])
                #expect(tier.status == .badRequest && tier.errorField == "additionalCustomerInformation.tier", "\(value): \(tier.json)")
            }
            // A required external id is sent with every update (the update replaces it); an
            // address sent replaces the stored one, so it keeps its required fields.
            let withoutID = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session), body: ["firstName": "Ada"])
            #expect(withoutID.status == .badRequest && withoutID.errorField == "externalId", "\(withoutID.json)")
            let withoutCity = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                                    body: ["externalId": "EX-1234", "addressInformation": ["zipCode": "10001"]])
            #expect(withoutCity.status == .badRequest && withoutCity.errorField == "addressInformation.city", "\(withoutCity.json)")
            let loyalty = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                                body: ["externalId": "EX-1234", "additionalCustomerInformation": ["loyalty_id": "7654321"]])
            #expect(loyalty.status == .ok, "\(loyalty.json)")
            let after = try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).decoded(Customer.self)
            #expect(after?.externalId == "EX-1234" && after?.additionalCustomerInformation?["tier"] == "basic", "\(String(describing: after))")
        }
    }

    /// Without `issuer.fields` the served metadata is the spec's defaults.
    @Test func theDefaultsStayTheDefaults() async throws {
        try await withServer { _, client in
            let served = try #require(try await client.call(.get, "/v1/enrollment/profile-metadata").decoded(ProfileMetadata.self))
            #expect(served == ProfileMetadata.default)
        }
    }

    /// A field the issuer marks `pciEncryptionRequired` must travel sealed: the encryption
    /// settings name where, and a plain value is refused naming the field, before any rule runs.
    @Test func aPCIFieldMustBeSealed() async throws {
        try await withServer(configure: { configuration in
            var pci = FieldOverride()
            pci.pciEncryptionRequired = true
            configuration.issuer.fields = ["additionalCustomerInformation": ["card_ref": pci]]
        }) { _, client in
            let settings = try #require(try await client.call(.get, "/v1/enrollment/encryption-settings")
                .decoded(Components.Schemas.EncryptionSettingsResponse.self))
            #expect(settings.profileFields?.contains { $0.operationId == "registerNewUser"
                && $0.pointer == "/userProfile/additionalCustomerInformation/card_ref" } == true, "\(String(describing: settings.profileFields))")
            let plain = try await client.call(.post, "/v1/enrollment/users", body: registrationBody { profile in
                profile["additionalCustomerInformation"] = ["card_ref": "PAN-REF-1"]
            })
            #expect(plain.status == .badRequest && plain.failure?.id == "seal_required"
                    && plain.errorField == "userProfile.additionalCustomerInformation.card_ref", "\(plain.json)")
            #expect(!String(decoding: plain.data, as: UTF8.self).contains("PAN-REF-1"))
        }
        #expect(throws: ConfigurationError.self, "only fields of the profile document") {
            try ServerConfiguration.parse(yaml: "issuer:\n  fields: { userProfile: { EXTERNAL_ID: { pciEncryptionRequired: true } } }")
        }
    }

    /// `pciEncryptionRequired` at rest: an imported value (import lines carry plain values) is
    /// stored encrypted and read back plain; a value stored before the field was marked still
    /// reads; the cipher opens what an earlier pepper sealed, and nothing under another pepper.
    @Test(arguments: TestEnvironment.engines)
    func pciValuesAreStoredEncrypted(engine: String) async throws {
        try await withServer(engine: engine, configure: { configuration in
            var pci = FieldOverride()
            pci.pciEncryptionRequired = true
            var required = FieldOverride()
            required.required = true
            configuration.issuer.fields = ["additionalCustomerInformation": ["card_ref": pci], "addressInformation": ["CITY": required]]
        }) { app, client in
            let line = ImportTests.json(["email": "imported@example.com", "firstName": "Ada", "lastName": "Lovelace",
                                         "emailVerified": true, "password": ["value": "imported-pass-42"],
                                         "additionalCustomerInformation": ["card_ref": "PAN-REF-5150", "note": "enc1:not-a-ciphertext"]])
            let imported = try await ImportTests.importing(app, [line])
            #expect(imported.failures == [] && imported.report.created == 1, "a required address is registration's: \(imported.failures)")
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "imported@example.com"))
            #expect(user.profileJSON.contains("enc1:") && !user.profileJSON.contains("PAN-REF-5150")
                    && !user.profileJSON.contains("not-a-ciphertext"), "a plain value that looks encrypted is encrypted too: \(user.profileJSON)")
            let opened = try EnrollmentService.StoredProfile(of: user, opening: app.hasher.profileFieldCipher)
            #expect(opened.additionalCustomerInformation == ["card_ref": "PAN-REF-5150", "note": "enc1:not-a-ciphertext"])
            let otherPepper = ProfileFieldCipher(pepper: SymmetricKey(size: .bits256))
            #expect(try EnrollmentService.StoredProfile(of: user, opening: otherPepper).additionalCustomerInformation == [:],
                    "values that no longer open are left out, the profile still reads")
            let login = try await AuthFixture.passwordLogin(client, email: "imported@example.com", password: "imported-pass-42")
            if let session = login.login?.sessionToken {
                let customer = try await client.call(.get, "/v1/profile", headers: appHeaders(session: session)).decoded(Customer.self)
                #expect(customer?.additionalCustomerInformation?["card_ref"] == "PAN-REF-5150")
            } else {
                // An imported user logs in from a new device with an MFA answer; read the document directly.
                let opened = try EnrollmentService.StoredProfile(of: user, opening: app.hasher.profileFieldCipher)
                #expect(opened.additionalCustomerInformation?["card_ref"] == "PAN-REF-5150")
            }
        }
        let (old, new) = (SymmetricKey(size: .bits256), SymmetricKey(size: .bits256))
        let sealed = try ProfileFieldCipher(pepper: old).seal("PAN-REF-1")
        #expect(try ProfileFieldCipher(pepper: new, previousPeppers: [old]).open(sealed) == "PAN-REF-1")
        #expect(try ProfileFieldCipher(pepper: new).open("stored before it was marked") == "stored before it was marked")
        #expect(throws: StoreError.self) { try ProfileFieldCipher(pepper: new).open(sealed) }
    }
}
