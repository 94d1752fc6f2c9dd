import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import NIOCore
import Testing

let applicationSignature = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"

/// The app-context headers every `/v1` call needs.
func appHeaders(device: String = "device-1", session: String? = nil) -> HTTPFields {
    var headers: HTTPFields = [HTTPField.Name("X-Application-Signature")!: applicationSignature,
                               HTTPField.Name("X-Device-ID")!: device, .contentType: "application/json"]
    if let session { headers[.authorization] = "Bearer \(session)" }
    return headers
}

/// A decoded JSON answer.
struct JSONAnswer {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let json: [String: Any]

    var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }
    var errorCode: Int? { error["code"] as? Int }
    var errorField: String? { error["field"] as? String }
}

extension TestClientProtocol {
    func call(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = appHeaders(), body: Any? = nil,
              raw: String? = nil) async throws -> JSONAnswer {
        let buffer: ByteBuffer? = if let raw { ByteBuffer(string: raw) } else if let body {
            ByteBuffer(data: try JSONSerialization.data(withJSONObject: body))
        } else { nil }
        return try await execute(uri: uri, method: method, headers: headers, body: buffer) { response in
            let data = Data(buffer: response.body)
            let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return JSONAnswer(status: response.status, headers: response.headers, json: json)
        }
    }
}

/// A registration body that passes the default issuer rules.
func registrationBody(email: String = "ada@example.com", change: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
    var profile: [String: Any] = [
        "firstName": "Ada", "lastName": "Lovelace", "email": email, "password": "correct-horse-42",
        "confirmPassword": "correct-horse-42", "passcode": "314159", "confirmPasscode": "314159",
        "mfaAnswers": ["What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                       "What is your mother's maiden name?": "Byron"],
    ]
    change(&profile)
    return ["userProfile": profile]
}

/// Builds a test server on a fresh database of `engine` and runs `body` against it.
func withServer<T: Sendable>(engine: String = "sqlite", clock: TestClock? = nil, live: Bool = false,
                             configure: (inout ServerConfiguration) -> Void = { _ in },
                   _ body: @escaping @Sendable (LatchkeyApplication, any TestClientProtocol) async throws -> T) async throws -> T {
    var configuration = try TestEnvironment.configuration(database: try await TestEnvironment.freshDatabase(engine))
    configure(&configuration)
    let now: @Sendable () -> Date = if let clock { { clock.now } } else { { Date() } }
    let app = try await TestEnvironment.application(configuration, now: now)
    defer { Task { try? await app.store.close() } }
    return try await app.application.test(live ? .live : .router) { client in try await body(app, client) }
}
