#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeyServer
import Testing

/// Issue 23.3 through the SDK: the issuer's field metadata reaches the app, and the SDK refuses
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
}
