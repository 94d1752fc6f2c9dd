import Foundation
import HummingbirdTesting
import Latchkey
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import OpenAPIRuntime
import OpenAPIURLSession

let signature = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"

/// Runs `body` with an SDK client talking over real HTTP (URLSession) to an in-process server.
func withLiveServer(messages: [String: String] = [:], now: @escaping @Sendable () -> Date = Date.init,
                    serverNow: @escaping @Sendable () -> Date = Date.init,
                    storage: any CredentialStorage = MemoryCredentialStorage(),
                    transport: (any ClientTransport)? = nil, encryption: [String: Bool] = [:],
                    configure: (inout ServerConfiguration) -> Void = { _ in },
                    _ body: @escaping @Sendable (LatchkeyClient, LatchkeyApplication) async throws -> Void) async throws {
    var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase("sqlite"))
    // The SDK proves its device key on every call, so its suite runs with binding required.
    configuration.issuer.deviceBinding = .required
    configure(&configuration)
    let app = try await TestEnvironment.application(configuration, now: serverNow)
    try await PatientLiveServer.run(app.application) { client in
        let port = client.port ?? 0
        let sdk = testClient(context: LatchkeyContext(
            serverURL: URL(string: "http://127.0.0.1:\(port)")!, applicationSignature: signature,
            deviceID: "sdk-device", userErrorMessages: messages, encryptionSettings: encryption),
            transport: transport ?? URLSessionTransport(),
            storage: storage, now: now)
        do { try await body(sdk, app) } catch {
            try? await app.store.close()
            throw error
        }
    }
    try await app.store.close()
}

/// The issuer requires every PIN, password and MFA answer sealed: a test run with it
/// shows the SDK seals them on its calls (the server refuses a plain one).
@Sendable func sealEverything(_ configuration: inout ServerConfiguration) {
    configuration.issuer.encryption.pin = true
    configuration.issuer.encryption.password = true
    configuration.issuer.encryption.mfaAnswers = true
}

func sampleProfile(email: String = "grace@example.com") -> UserProfile {
    UserProfile(firstName: "Grace", lastName: "Hopper", email: email, password: "cobol-rules-1959",
                confirmPassword: "cobol-rules-1959", passcode: "314159", confirmPasscode: "314159",
                mfaAnswers: ["What was the name of your first pet?": "Rex", "In what city were you born?": "New York",
                             "What is your mother's maiden name?": "Murray"],
                additionalCustomerInformation: ["opt_in_email": "false"], addressInformation: AddressInformation(zipCode: "10001"))
}

import LatchkeyCore

/// An SDK client whose storage the test chooses (memory unless given, never the Keychain of the
/// machine running the tests, which on macOS would need an entitlement), with no reinstall detection.
func testClient(context: LatchkeyContext, transport: any ClientTransport = URLSessionTransport(),
                storage: any CredentialStorage = MemoryCredentialStorage(),
                now: @escaping @Sendable () -> Date = Date.init) -> LatchkeyClient {
    LatchkeyClient(context: context, transport: transport, storage: storage, now: now, reinstall: .off)
}
