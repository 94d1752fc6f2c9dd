import Foundation
import HTTPTypes
import Latchkey
import LatchkeyCore
import OpenAPIRuntime
import OpenAPIURLSession
import Synchronization
import Testing

/// The real transport, noting the `Accept-Language` of every request it carries.
final class LanguageNotingTransport: ClientTransport {
    let inner = URLSessionTransport()
    let sent = Mutex<[String?]>([])

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        sent.withLock { $0.append(request.headerFields[.acceptLanguage]) }
        return try await inner.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }

    /// The values noted since the last call, cleared.
    func take() -> [String?] { sent.withLock { noted in defer { noted = [] }; return noted } }
}

/// The device's languages (`LatchkeyContext.preferredLanguages`) go with every call as
/// `Accept-Language`, and the server answers in them.
@Suite struct PreferredLanguagesTests {
    @Test func theCustomersLanguagesReachTheServerOnEveryCall() async throws {
        let transport = LanguageNotingTransport()
        try await withLiveServer(transport: transport) { sdk, app in
            _ = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            _ = transport.take()

            // Best first with falling weights; `_` read as `-`, what is no BCP 47 tag left out.
            var context = sdk.context
            context.preferredLanguages = ["de_AT", "en-GB", "not a tag", "fr"]
            let german = testClient(context: context, transport: transport)
            let refused = await failure { _ = try await german.enrollment.registerNewUser(sampleProfile()) }
            #expect(refused?.id == .emailInUse && refused?.code.rawValue == 416)
            #expect(refused?.detail == "Die E-Mail-Adresse wird bereits von einem anderen Wallet verwendet.", "\(String(describing: refused))")
            let sent = transport.take()
            #expect(!sent.isEmpty && sent.allSatisfy { $0 == "de-AT, en-GB;q=0.9, fr;q=0.8" }, "\(sent)")

            // At most six, the same call answered in the first language the server has.
            context.preferredLanguages = ["ja", "en", "de", "fr", "it", "es", "pt"]
            let english = testClient(context: context, transport: transport)
            let same = await failure { _ = try await english.enrollment.registerNewUser(sampleProfile()) }
            #expect(same?.id == .emailInUse && same?.detail == "The email address is already in use by an existing wallet.")
            #expect(transport.take().allSatisfy { $0 == "ja, en;q=0.9, de;q=0.8, fr;q=0.7, it;q=0.6, es;q=0.5" })

            // None given, none sent.
            context.preferredLanguages = []
            _ = try await testClient(context: context, transport: transport).enrollment.retrieveEnrollmentRules()
            let none = transport.take()
            #expect(!none.isEmpty && none.allSatisfy { $0 == nil }, "\(none)")
        }
    }

    /// By default the context carries the device's languages.
    @Test func theDefaultIsTheDevicesLanguages() {
        let context = LatchkeyContext(serverURL: URL(string: "https://wallet.example")!, applicationSignature: signature, deviceID: "d")
        #expect(context.preferredLanguages == Locale.preferredLanguages)
    }
}
