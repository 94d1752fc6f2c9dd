#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import Testing

/// Through the SDK, the issuer's field metadata reaches the app, and the SDK refuses
/// what the server would, by the same rules (`LatchkeyCore`), before anything is sent.
@Suite struct FieldMetadataClientTests {
    @Test func theSDKEnforcesTheIssuersFields() async throws {
        let network = RecordingTransport()
        try await withLiveServer(transport: network, configure: { configuration in
            configuration.issuer.fields = ["additionalCustomerInformation": ["loyalty_id": {
                var loyalty = FieldOverride()
                loyalty.required = true
                loyalty.regex = "[0-9]{6}"
                return loyalty
            }()]]
        }) { sdk, _ in
            let metadata = try await sdk.enrollment.retrieveProfileMetadata()
            #expect(metadata.additionalCustomerInformation.first?.key == "loyalty_id")
            var profile = sampleProfile()
            let refusal = await #expect(throws: LatchkeyError.self) { _ = try await sdk.enrollment.registerNewUser(profile) }
            #expect(refusal?.kind == .validation && refusal?.field == "userProfile.additionalCustomerInformation.loyalty_id",
                    "\(String(describing: refusal))")
            #expect(!network.all.contains("grace@example.com"), "nothing was sent")
            profile.additionalCustomerInformation?["loyalty_id"] = "271828"
            let registered = try await sdk.enrollment.registerNewUser(profile)
            #expect(!registered.nonce.isEmpty)
        }
    }

    /// A storage that keeps every value written, to look for what must not be written.
    actor RecordingStorage: CredentialStorage {
        var values: [String: Data] = [:]
        var written: [Data] = []
        func data(for key: String) -> Data? { values[key] }
        func set(_ data: Data?, for key: String) {
            values[key] = data
            if let data { written.append(data) }
        }
    }

    /// `storageRestricted`: the SDK writes no profile value to its storage, and its HTTP client
    /// keeps no cache, so a restricted value is never on the disk.
    @Test func aRestrictedValueIsNeverStored() async throws {
        let storage = RecordingStorage()
        try await withLiveServer(storage: storage, configure: { configuration in
            var secret = FieldOverride()
            secret.storageRestricted = true
            configuration.issuer.fields = ["additionalCustomerInformation": ["national_id": secret]]
        }) { sdk, app in
            #expect(try await sdk.enrollment.retrieveProfileMetadata().additionalCustomerInformation.first?.storageRestricted == true)
            var profile = sampleProfile()
            profile.additionalCustomerInformation?["national_id"] = "RESTRICTED-4711"
            let registered = try await sdk.enrollment.registerNewUser(profile)
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            #expect(try await sdk.enrollment.retrieveCustomer().additionalCustomerInformation?["national_id"] == "RESTRICTED-4711")
            let written = await storage.written
            #expect(!written.isEmpty, "the session and the key were stored")
            #expect(!written.contains { String(decoding: $0, as: UTF8.self).contains("RESTRICTED-4711") })
        }
        let configuration = LatchkeyClient.defaultSessionConfiguration
        #expect(configuration.urlCache == nil && configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        #expect(configuration.httpCookieStorage == nil && configuration.urlCredentialStorage == nil, "no shared, persistent stores")
        #expect(configuration.timeoutIntervalForResource == 60)
    }

    /// `pciEncryptionRequired` in transit: the server publishes where the marked fields are in
    /// each operation's body; the SDK seals them (registration, profile update) and the server
    /// opens them; no request body holds the value.
    @Test func aPCIFieldTravelsSealed() async throws {
        let network = RecordingTransport()
        try await withLiveServer(transport: network, configure: { configuration in
            var pci = FieldOverride()
            pci.pciEncryptionRequired = true
            configuration.issuer.fields = ["additionalCustomerInformation": ["card_ref": pci], "addressInformation": ["ZIP_CODE": pci]]
        }) { sdk, app in
            var profile = sampleProfile()
            profile.additionalCustomerInformation?["card_ref"] = "PAN-REF-9941"
            let registered = try await sdk.enrollment.registerNewUser(profile)
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            _ = try await sdk.enrollment.updateUserProfile(ProfileUpdate(additionalCustomerInformation: ["card_ref": "PAN-REF-7720"]))
            let customer = try await sdk.enrollment.retrieveCustomer()
            #expect(customer.additionalCustomerInformation?["card_ref"] == "PAN-REF-7720"
                    && customer.contactInformation.addressInformation?.zipCode == "10001", "the server opened them")
            let sent = network.all
            #expect(sent.contains("hpke1."))
            for plain in ["PAN-REF-9941", "PAN-REF-7720", "10001"] { #expect(!sent.contains(plain), "\(plain) went plain") }
            // At rest: the stored document holds them encrypted.
            let stored = try #require(try await app.store.user(issuer: "default", emailNormalized: "grace@example.com")).profileJSON
            #expect(stored.contains("enc1:") && !stored.contains("PAN-REF") && !stored.contains("10001"), "\(stored)")
        }
    }

    /// `reverificationRequired` with `pciEncryptionRequired`: the SDK's update says the change
    /// waits; the held value is encrypted in the database and the profile changes only once the
    /// link sent to the wallet's address is confirmed.
    @Test func aMarkedChangeWaitsForTheEmailedConfirmation() async throws {
        try await withLiveServer(configure: { configuration in
            var field = FieldOverride()
            field.pciEncryptionRequired = true
            field.reverificationRequired = true
            configuration.issuer.fields = ["additionalCustomerInformation": ["card_ref": field]]
        }) { sdk, app in
            var profile = sampleProfile()
            profile.additionalCustomerInformation?["card_ref"] = "PAN-REF-9941"
            let registered = try await sdk.enrollment.registerNewUser(profile)
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = try await sdk.authentication.loginByNonce(registered.nonce)
            let metadata = try await sdk.enrollment.retrieveProfileMetadata()
            #expect(ProfileMetadata.field("card_ref", in: metadata.additionalCustomerInformation)?.reverificationRequired == true)

            let result = try await sdk.enrollment.updateUserProfile(ProfileUpdate(lastName: "Hopper-Murray",
                                                                                  additionalCustomerInformation: ["card_ref": "PAN-REF-7720"]))
            #expect(result.pendingVerification == ["additionalCustomerInformation.card_ref"], "\(result)")
            var customer = try await sdk.enrollment.retrieveCustomer()
            #expect(customer.lastName == "Hopper-Murray" && customer.additionalCustomerInformation?["card_ref"] == "PAN-REF-9941")

            let row = try #require(try await app.store.outboxMessages().last { $0.template == "profile_change_confirmation" })
            let link = try #require(app.cipher.open(row)?.data["link"])
            let path = String(link[link.range(of: "/confirm-change")!.lowerBound...])
            let token = String(path[path.range(of: "token=")!.upperBound...])
            let held = try #require(try await app.store.token(digest: SecureRandom.digest(token), purpose: .profileChange, now: Date()))
            #expect(!(held.data ?? "").contains("PAN-REF"), "the held value is encrypted")
            let page = try await EmailLinkBrowser.follow(URL(string: sdk.context.serverURL.absoluteString + path)!)
            #expect(page.status == 200 && page.html.contains("Profile changed"), "\(page.html)")
            customer = try await sdk.enrollment.retrieveCustomer()
            #expect(customer.additionalCustomerInformation?["card_ref"] == "PAN-REF-7720")
            let stored = try #require(try await app.store.user(issuer: "default", emailNormalized: "grace@example.com")).profileJSON
            #expect(!stored.contains("PAN-REF"), "stored encrypted once confirmed: \(stored)")
        }
    }
}
