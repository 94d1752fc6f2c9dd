import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Issue 23.3: the issuer changes the spec's default field metadata (`PDMetaData`) and defines
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
            profile["addressInformation"] = ["zipCode": "10001-2345"]
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
                ({ (p: inout [String: Any]) in p["addressInformation"] = ["zipCode": "1000"] }, "userProfile.addressInformation.zipCode"),
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
                                                raw: #"{"additionalCustomerInformation": {"loyalty_id": null}}"#)
            #expect(removed.status == .badRequest && removed.errorField == "additionalCustomerInformation.loyalty_id", "\(removed.json)")
            let tier = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                             body: ["additionalCustomerInformation": ["tier": "gold"]])
            #expect(tier.status == .badRequest && tier.errorField == "additionalCustomerInformation.tier", "\(tier.json)")
            let loyalty = try await client.call(.patch, "/v1/profile", headers: appHeaders(session: session),
                                                body: ["additionalCustomerInformation": ["loyalty_id": "7654321"]])
            #expect(loyalty.status == .ok, "\(loyalty.json)")
        }
    }

    /// Without `issuer.fields` the served metadata is the spec's defaults, as before.
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
}
