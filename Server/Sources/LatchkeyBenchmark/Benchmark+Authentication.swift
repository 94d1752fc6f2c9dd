import AsyncHTTPClient
import Foundation
import LatchkeyCore
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import NIOCore

/// A verified user linked to the benchmark device, with a session and a device token.
struct BenchmarkUser {
    static let email = "bench-login@example.com"
    static let password = "benchmark-pass-1"
    static let pin = "314159"
    let session: String
    let deviceToken: String

    /// Registers the user over HTTP, then verifies it and links the device through the store
    /// (the steps a person would do by email and nonce), and logs in once.
    static func prepare(app: LatchkeyApplication, driver: LoadDriver, questions: [String]) async throws -> BenchmarkUser {
        let answers = questions.enumerated().map { "\"\($1.replacingOccurrences(of: "\"", with: "\\\""))\": \"answer \($0)\"" }
        _ = try await driver.send(.init(path: "/v1/enrollment/users", method: .POST, body: """
            {"userProfile": {"firstName": "Bench", "lastName": "Login", "email": "\(email)", "password": "\(password)",
            "confirmPassword": "\(password)", "passcode": "\(pin)", "confirmPasscode": "\(pin)",
            "mfaAnswers": {\(answers.joined(separator: ","))}}}
            """))
        guard let user = try await app.store.user(issuer: app.configuration.issuer.id, emailNormalized: email) else {
            throw BenchmarkError("registration of the login user failed")
        }
        try await app.store.markEmailVerified(userID: user.id)
        try await app.store.markAppInstanceVerified(userID: user.id)
        try await app.store.linkDevice(userID: user.id, deviceID: LoadDriver.deviceID, deviceType: "bench", now: Date())
        let login = try await driver.json(.init(path: "/v1/auth/login/password", method: .POST,
                                                body: #"{"username": "\#(email)", "password": "\#(password)"}"#))
        guard let session = login["sessionToken"] as? String else { throw BenchmarkError("login failed: \(login)") }
        let token = try await driver.json(.init(path: "/v1/auth/device-token", method: .POST, session: session,
                                                body: #"{"username": "\#(email)", "password": "\#(password)"}"#))
        guard let deviceToken = token["deviceToken"] as? String else { throw BenchmarkError("device token failed: \(token)") }
        return BenchmarkUser(session: session, deviceToken: deviceToken)
    }

    /// Login and session operations, each measured like the others.
    func measure(driver: LoadDriver, seconds: Double, health: LoadDriver.Result, hashRate: Double,
                 app: LatchkeyApplication) async throws {
        let password = try await driver.measure("POST /v1/auth/login/password", seconds: seconds) { _ in
            .init(path: "/v1/auth/login/password", method: .POST,
                  body: #"{"username": "\#(Self.email)", "password": "\#(Self.password)"}"#)
        }
        password.print(baseline: nil)
        print(String(format: "password login: 1 hash each, %.0f%% of the raw hash rate (target ≥ 90%%)",
                     password.rate / hashRate * 100))
        // Ten times the connections, as in a login storm (160 clients with the default 16).
        let storm = LoadDriver(base: driver.base, connections: driver.connections * 10)
        try await storm.storm(clients: driver.connections * 10, seconds: max(seconds, 10), timeout: 10, request: .init(
            path: "/v1/auth/login/password", method: .POST,
            body: #"{"username": "\#(Self.email)", "password": "\#(Self.password)"}"#)).print(hashRate: hashRate)
        try await storm.shutdown()
        try await driver.measure("POST /v1/auth/login/pin", seconds: seconds) { _ in
            .init(path: "/v1/auth/login/pin", method: .POST, body: #"{"pin": "\#(Self.pin)"}"#)
        }.print(baseline: nil)
        let token = deviceToken
        try await driver.measure("POST /v1/auth/login/device-token", seconds: seconds) { _ in
            .init(path: "/v1/auth/login/device-token", method: .POST, body: #"{"deviceToken": "\#(token)"}"#)
        }.print(baseline: health)
        try await measureSession(driver: driver, seconds: seconds, health: health, app: app)
    }

    func measureSession(driver: LoadDriver, seconds: Double, health: LoadDriver.Result, app: LatchkeyApplication) async throws {
        let session = self.session
        try await driver.measure("GET /v1/auth/session", seconds: seconds) { _ in
            .init(path: "/v1/auth/session", session: session)
        }.print(baseline: health)
        // Enough proofs for 40,000 checks a second; each is used once.
        guard let user = try await app.store.user(issuer: app.configuration.issuer.id, emailNormalized: Self.email) else { return }
        let bound = try await BoundSession.prepare(store: app.store, userID: user.id,
                                                   url: driver.base.absoluteString + "/v1/auth/session",
                                                   count: Int(seconds * 40_000))
        try await driver.measure("GET /v1/auth/session (DPoP-bound)", seconds: seconds) { index in
            .init(path: "/v1/auth/session",
                  headers: [("Authorization", "DPoP \(bound.token)"), ("DPoP", bound.proofs[index % bound.proofs.count])])
        }.print(baseline: health)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
