import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Latchkey
import LatchkeyCore

/// The authentication part of the demo: nonce login → logout → password login → second device →
/// MFA prompt → answer → PIN login → device token → device-token login → expire → logout.
struct AuthenticationWalk {
    let client: LatchkeyClient
    let email: String
    let profile: UserProfile
    let nonce: String
    /// The second device's storage, which the demo reads to show what a stolen token is worth.
    let secondStorage = MemoryCredentialStorage()

    func run() async throws {
        let auth = client.authentication
        try expectAuthenticated(try await step("loginByNonce") { try await auth.loginByNonce(nonce) })
        let session = try await step("current session") { try await auth.currentSession() }
        print("  \(session.customerUri) on \(session.deviceId ?? "?"), idle until \(session.idleExpiresAt.formatted(.iso8601))")
        print("  device key thumbprint: \(try await client.deviceThumbprint())")
        try await step("logout") { try await auth.logout() }
        try expectAuthenticated(try await step("loginByUsernamePassword") {
            try await auth.loginByUsernamePassword(username: email, password: profile.password ?? "")
        })

        var secondContext = client.context
        secondContext.deviceID = client.context.deviceID + "-tablet"
        let second = LatchkeyClient(context: secondContext, storage: secondStorage, reinstall: .off).authentication
        let prompt = try await step("loginByUsernamePassword from a second device") {
            try await second.loginByUsernamePassword(username: email, password: profile.password ?? "")
        }
        guard case .mfaRequired(var token) = prompt else { throw DemoError("The second device was not prompted.") }
        print("  MFA prompt (412): \(token.mfaSecretQuestion)")
        token.mfaSecretAnswer = profile.mfaAnswers?[token.mfaSecretQuestion] ?? ""
        try expectAuthenticated(try await step("registerWithMFA") { try await second.registerWithMFA(token) })
        try await stolenTokenIsRefused(on: second)
        try await step("logout on the second device") { try await second.logout() }

        try expectAuthenticated(try await step("loginByPIN") { try await auth.loginByPIN(profile.passcode ?? "") })
        let expires = try await step("generateDeviceAuthenticationToken") {
            try await auth.generateDeviceAuthenticationToken(username: email, password: profile.password ?? "")
        }
        print("  token kept by the SDK until \(expires.formatted(.iso8601)); isAuthorizationTokenExist: \(await auth.isAuthorizationTokenExist())")
        try await step("logout") { try await auth.logout() }
        try expectAuthenticated(try await step("loginWithDeviceAuthenticationToken") {
            try await auth.loginWithDeviceAuthenticationToken()
        })
        try await step("expireDeviceAuthenticationToken") { try await auth.expireDeviceAuthenticationToken() }
        try await step("logout") { try await auth.logout() }
        print("  state: \(await auth.state)")
    }

    /// Copies the second device's session token out of its storage, as malware or a leaked
    /// backup would, and sends it from elsewhere without the device key: the server refuses it.
    private func stolenTokenIsRefused(on second: AuthenticationClient) async throws {
        // The SDK keeps the session as one JSON item: {"token": …, "customerUri": …}.
        struct Stored: Decodable { let token: String }
        guard let item = try await secondStorage.data(for: "latchkey.session"),
              let stolen = try? JSONDecoder().decode(Stored.self, from: item).token else {
            throw DemoError("The second device holds no session.")
        }
        var request = URLRequest(url: client.context.serverURL.appendingPathComponent("v1/auth/session"))
        request.setValue(client.context.applicationSignature, forHTTPHeaderField: "X-Application-Signature")
        request.setValue("Bearer \(stolen)", forHTTPHeaderField: "Authorization")
        let (body, response) = try await step("the second device's session token, copied and sent without its key") {
            try await URLSession.shared.data(for: request)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        print("  \(status) \((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "WWW-Authenticate") ?? ""): "
            + String(decoding: body, as: UTF8.self))
        guard status == 401 else { throw DemoError("A copied session token was accepted without the device key.") }
        _ = try await second.currentSession()
        print("  the device itself, which proves its key, still has its session")
    }

    private func expectAuthenticated(_ result: LoginResult) throws {
        guard case .authenticated(let attributes) = result else { throw DemoError("Expected a session, got \(result).") }
        if !attributes.isEmpty {
            print("  " + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
    }
}
