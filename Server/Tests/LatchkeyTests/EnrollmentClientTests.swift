import Foundation
import HTTPTypes
import Latchkey
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import OpenAPIRuntime
import Testing

@Suite struct EnrollmentClientTests {
    @Test func readsTheIssuerConfiguration() async throws {
        try await withLiveServer { sdk, _ in
            let questions = try await sdk.enrollment.retrieveMfaQuestionsWithMetadata()
            #expect(questions.mfaQuestions.count >= 10)
            #expect(questions.numberOfRequiredQuestions == 3)
            #expect(questions.mfaQuestionsWithMetadata.map(\.mfaQuestion) == questions.mfaQuestions)
            #expect(try await sdk.enrollment.retrievePasswordConfigurations() == .default)
            #expect(try await sdk.enrollment.retrievePasscodeConfigurations() == .default)
            #expect(try await sdk.enrollment.retrieveProfileMetadata() == .default)
        }
    }

    @Test func registersAUser() async throws {
        try await withLiveServer { sdk, app in
            let response = try await sdk.enrollment.registerNewUser(sampleProfile())
            #expect(response.customerUri.hasPrefix("urn:latchkey:customer:"))
            #expect(response.nonce.count >= 43)
            let token = try await app.store.consumeToken(digest: SecureRandom.digest(response.nonce), purpose: .registrationNonce,
                                                         now: Date())
            #expect(token?.deviceID == "jkt:" + (try await sdk.deviceThumbprint()), "the SDK proves its device key")
        }
    }

    @Test func serverRefusalCarriesTheCodeAndTheAppMessage() async throws {
        let messages = ["kUserErrorRegisterNewUserDomain.416": "This email already has a wallet."]
        try await withLiveServer(messages: messages) { sdk, app in
            _ = try await sdk.enrollment.registerNewUser(sampleProfile())
            try await AuthenticationClientTests.verifyEmail(app, server: sdk.context.serverURL)
            do {
                _ = try await sdk.enrollment.registerNewUser(sampleProfile(email: "GRACE@example.com"))
                Issue.record("a second registration must fail")
            } catch let error as LatchkeyError {
                #expect(error.kind == .server)
                #expect(error.code == .emailInUse)
                #expect(error.domain == .registerNewUser)
                #expect(error.message == "This email already has a wallet.")
                #expect(error.detail.contains("already in use"))
                #expect(error.field == "userProfile.email")
            }
        }
    }

    @Test func rulesAreCheckedBeforeSending() async throws {
        try await withLiveServer { sdk, app in
            var profile = sampleProfile()
            profile.passcode = "123456"
            profile.confirmPasscode = "123456"
            do {
                _ = try await sdk.enrollment.registerNewUser(profile)
                Issue.record("123456 must be refused")
            } catch let error as LatchkeyError {
                #expect(error.kind == .validation)
                #expect(error.code == .passcodeRules)
                #expect(error.field == "userProfile.passcode")
            }
            profile = sampleProfile()
            profile.password = "short"
            profile.confirmPassword = "short"
            await #expect(throws: LatchkeyError.self) { _ = try await sdk.enrollment.registerNewUser(profile) }
            #expect(try await app.store.user(issuer: "default", emailNormalized: "grace@example.com") == nil)
        }
    }

    @Test func serverRulesApplyWhenTheAppSkipsTheCheck() async throws {
        try await withLiveServer { sdk, _ in
            let lenient = EnrollmentRules(passcode: PasscodeConfigurations(allowSameValues: true),
                                          mfa: try await sdk.enrollment.retrieveMfaQuestionsWithMetadata())
            var profile = sampleProfile()
            profile.passcode = "111111"
            profile.confirmPasscode = "111111"
            do {
                _ = try await sdk.enrollment.registerNewUser(profile, rules: lenient)
                Issue.record("the server must refuse 111111")
            } catch let error as LatchkeyError {
                #expect(error.kind == .server)
                #expect(error.code == 420)
                #expect(error.domain.rawValue == "kUserErrorRegisterNewUserDomain")
            }
        }
    }

    @Test func invalidApplicationSignatureFailsEveryCall() async throws {
        let transport = CountingTransport()
        let sdk = testClient(context: LatchkeyContext(serverURL: URL(string: "http://127.0.0.1:1")!,
                                                          applicationSignature: "short", deviceID: "d"),
                                 transport: transport)
        for call in [{ _ = try await sdk.enrollment.retrieveMfaQuestionsWithMetadata() },
                     { _ = try await sdk.enrollment.retrievePasswordConfigurations() },
                     { _ = try await sdk.enrollment.retrievePasscodeConfigurations() },
                     { _ = try await sdk.enrollment.retrieveProfileMetadata() },
                     { _ = try await sdk.enrollment.registerNewUser(sampleProfile()) }] as [@Sendable () async throws -> Void] {
            do {
                try await call()
                Issue.record("must fail")
            } catch let error as LatchkeyError {
                #expect(error.kind == .configuration)
            }
        }
        #expect(await transport.count == 0, "nothing is sent with an invalid configuration")
    }

    @Test func unreachableServerIsATransportError() async throws {
        let sdk = testClient(context: LatchkeyContext(serverURL: URL(string: "http://127.0.0.1:1")!,
                                                          applicationSignature: signature, deviceID: "d"))
        let error = await failure { _ = try await sdk.enrollment.retrievePasswordConfigurations() }
        #expect(error?.kind == .transport)
        #expect(error?.domain == .retrievePasswordConfigs)
    }

    @Test func credentialStoragesKeepValues() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-\(UUID().uuidString)/store.json")
        for storage in [MemoryCredentialStorage(), FileCredentialStorage(url: file)] as [any CredentialStorage] {
            #expect(try await storage.data(for: "k") == nil)
            try await storage.set(Data("v".utf8), for: "k")
            #expect(try await storage.data(for: "k") == Data("v".utf8))
            try await storage.set(nil, for: "k")
            #expect(try await storage.data(for: "k") == nil)
        }
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

/// A transport that records calls (a fake, inside a unit test only).
actor CountingTransport: ClientTransport {
    var count = 0
    nonisolated func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
        -> (HTTPResponse, HTTPBody?) {
        await increment()
        return (HTTPResponse(status: .ok), nil)
    }
    func increment() { count += 1 }
}

/// The `LatchkeyError` a call fails with, or nil when it succeeds.
func failure(_ body: () async throws -> Void) async -> LatchkeyError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? LatchkeyError
    }
}
