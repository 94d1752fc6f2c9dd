import Foundation
import LatchkeyAPI
import LatchkeyCore
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

/// Steps that put a user into a known state over HTTP.
enum AuthFixture {
    static let password = "correct-horse-42"
    static let pin = "314159"
    /// The MFA answers `registrationBody` enrols.
    static let answers = ["What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                          "What is your mother's maiden name?": "Byron"]

    /// The enrolled answer to `question`.
    static func answer(for question: String) -> String { answers[question] ?? "" }

    /// Registers `email` from `device`; answers the nonce.
    static func register(_ client: any TestClientProtocol, email: String = "ada@example.com", device: String = "device-1")
        async throws -> String {
        let answer = try await client.call(.post, "/v1/enrollment/users", headers: appHeaders(device: device),
                                           body: registrationBody(email: email))
        #expect(answer.status == .created, "\(answer.json)")
        return try #require(answer.registration?.nonce)
    }

    /// Opens the verification link the courier would deliver to `email` and confirms it, as its owner does.
    static func verifyEmail(_ app: LatchkeyApplication, _ client: any TestClientProtocol, email: String = "ada@example.com")
        async throws {
        let page = try await EmailLink.follow(client, try await EmailLink.path(app, "email_verification", to: email))
        #expect(page.status == .ok && page.text(id: "title") == "Email verified", "\(page.html)")
    }

    /// Registers, verifies the email and logs in with the nonce from `device` (which links it);
    /// answers the session.
    static func nonceSession(_ app: LatchkeyApplication, _ client: any TestClientProtocol, email: String = "ada@example.com",
                             device: String = "device-1") async throws -> String {
        let nonce = try await register(client, email: email, device: device)
        try await verifyEmail(app, client, email: email)
        let login = try await client.call(.post, "/v1/auth/login/nonce", headers: appHeaders(device: device), body: ["nonce": nonce])
        #expect(login.status == .ok, "\(login.json)")
        return try #require(login.login?.sessionToken)
    }

    /// Enrolls `email` on `device` (`nonceSession`) and logs in there with the password, as a user
    /// does before a privileged change: answers that session, privileged for
    /// `issuer.sessions.privilegedSeconds` (a nonce login is not a knowledge factor).
    static func enrolledSession(_ app: LatchkeyApplication, _ client: any TestClientProtocol, email: String = "ada@example.com",
                                device: String = "device-1") async throws -> String {
        _ = try await nonceSession(app, client, email: email, device: device)
        let login = try await passwordLogin(client, email: email, device: device)
        #expect(login.status == .ok, "\(login.json)")
        return try #require(login.login?.sessionToken)
    }

    static func passwordLogin(_ client: any TestClientProtocol, email: String = "ada@example.com", password: String = password,
                              device: String = "device-1") async throws -> JSONAnswer {
        try await client.call(.post, "/v1/auth/login/password", headers: appHeaders(device: device),
                              body: ["username": email, "password": password])
    }
}
