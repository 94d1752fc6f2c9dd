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
}
