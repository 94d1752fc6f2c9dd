import Foundation
import LatchkeyAPI
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Possession of the phone is not knowledge, and a copied token cannot end
/// a session bound to its key.
@Suite struct PossessionLoginTests {
    static var newAnswers: [String: Any] { ["mfaAnswers": ["What was the name of your first pet?": "Mallory",
                                                           "In what city were you born?": "Mallory",
                                                           "What is your mother's maiden name?": "Mallory"]] }

    /// Attack: after `loginWithDeviceAuthenticationToken` the session moves the email and replaces
    /// the MFA answers with no password or PIN, so the phone and its 90-day token take the account
    /// (or a registration-nonce login does). Privileged changes need a login that checked a password, PIN or MFA answer; a PIN login is one.
    @Test(arguments: TestEnvironment.engines)
    func aDeviceTokenOrNonceLoginIsNotAKnowledgeFactor(engine: String) async throws {
        try await withServer(engine: engine) { app, client in
            let nonceSession = try await AuthFixture.nonceSession(app, client)
            for (method, path, body) in Self.privilegedChanges {
                let answer = try await client.call(method, path, headers: appHeaders(session: nonceSession), body: body)
                #expect(answer.failure?.id == "session_refresh_required", "nonce login, \(method) \(path): \(answer.json)")
            }

            let passwordSession = try #require(try await AuthFixture.passwordLogin(client).login?.sessionToken)
            let created = try await client.call(.post, "/v1/auth/device-token", headers: appHeaders(session: passwordSession),
                                                body: ["username": "ada@example.com", "password": AuthFixture.password])
            #expect(created.status == .created, "a password login is privileged: \(created.json)")
            let deviceToken = try #require(created.decoded(Components.Schemas.DeviceTokenResponse.self)?.deviceToken)
            let login = try await client.call(.post, "/v1/auth/login/device-token", body: ["deviceToken": deviceToken])
            let tokenSession = try #require(login.login?.sessionToken)
            for (method, path, body) in Self.privilegedChanges {
                let answer = try await client.call(method, path, headers: appHeaders(session: tokenSession), body: body)
                #expect(answer.status == .forbidden && answer.failure?.id == "session_refresh_required",
                        "device-token login, \(method) \(path): \(answer.json)")
            }
            let user = try #require(try await app.store.user(issuer: "default", emailNormalized: "ada@example.com"))
            #expect(!(try await app.store.outboxMessages().contains { $0.recipient == "mallory@example.com" }))
            #expect(try await app.store.devices(userID: user.id).map(\.deviceID) == ["device-1"])

            let pin = try await client.call(.post, "/v1/auth/login/pin", body: ["pin": AuthFixture.pin])
            let pinSession = try #require(pin.login?.sessionToken)
            let changed = try await client.call(.put, "/v1/profile/mfa-answers", headers: appHeaders(session: pinSession), body: Self.newAnswers)
            #expect(changed.status == .ok, "a PIN login checked a knowledge factor: \(changed.json)")
        }
    }

    /// The changes that need a privileged session.
    static var privilegedChanges: [(HTTPRequest.Method, String, [String: Any])] { [
        (.put, "/v1/profile/mfa-answers", newAnswers),
        (.patch, "/v1/profile", ["email": "mallory@example.com"]),
        (.put, "/v1/profile/password", ["oldPassword": AuthFixture.password, "newPassword": "taken-over-42",
                                        "confirmNewPassword": "taken-over-42"]),
        (.post, "/v1/auth/device-token", ["username": "ada@example.com", "password": AuthFixture.password]),
    ] }

    /// Attack: `DELETE /a/self-service/logout/api` with the `session_token` of a DPoP-bound
    /// session and no proof, so that a copied token, useless otherwise, forces a logout. Only a
    /// proof by the session's key ends the session.
    @Test(arguments: TestEnvironment.engines)
    func aCopiedBoundTokenCannotEndItsSession(engine: String) async throws {
        try await withServer(engine: engine, configure: { $0.publicURL = TestDeviceKey.base }) { app, client in
            let key = TestDeviceKey()
            let token = try await AuthFixture.keyEnrolledSession(app, client, key: key)
            let logout = "/a/self-service/logout/api"
            let json: HTTPFields = [.contentType: "application/json"]
            func stillWorks() async throws -> Bool {
                let path = "/v1/auth/session"
                return try await client.call(.get, path, headers: appHeaders().with(proof: key.proof("GET", path, token: token),
                                                                                    dpopToken: token)).status == .ok
            }

            let bare = try await client.call(.delete, logout, headers: json, body: ["session_token": token])
            #expect(bare.status == .unauthorized, "\(bare.json)")
            #expect(bare.headers[.wwwAuthenticate]?.hasPrefix("DPoP") == true)
            #expect(try await stillWorks())
            let thief = TestDeviceKey()
            let stolen = try await client.call(.delete, logout, headers: json.with(proof: thief.proof("DELETE", logout)),
                                               body: ["session_token": token])
            #expect(stolen.status == .unauthorized, "\(stolen.json)")
            #expect(try await stillWorks())

            let own = try await client.call(.delete, logout, headers: json.with(proof: key.proof("DELETE", logout)),
                                            body: ["session_token": token])
            #expect(own.status == .noContent, "\(own.json)")
            #expect(try await !stillWorks())
            let again = try await client.call(.delete, logout, headers: json, body: ["session_token": token])
            #expect(again.status == .noContent, "an ended session is ended, as Kratos answers")
        }
    }
}
