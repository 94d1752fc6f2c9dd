import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
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

/// An answer to a raw HTTP call, read through the contract's generated types (`decoded`, `login`,
/// `registration`, `failure`); `json` is left for what has no type in the contract (attacks,
/// answers to malformed requests, the shape of an envelope itself).
struct JSONAnswer {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let data: Data

    /// The body as the generated type `T`, or nil when it is not one.
    func decoded<T: Decodable>(_ type: T.Type = T.self) -> T? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(T.self, from: data)
    }

    /// A wallet login's answer (`LoginResponse`).
    var login: Components.Schemas.LoginResponse? { decoded() }
    /// A registration's answer (`RegisterUserResponse`).
    var registration: RegisterUserResponse? { decoded() }
    /// The error of the wallet envelope (`ErrorResponse`) or of Kratos's (`KratosError`).
    var failure: (id: String, code: Int, message: String, field: String?, reason: String?)? {
        // Kratos first: its envelope requires `status` and `reason`, so a wallet error never
        // decodes as one, while a Kratos error would decode as a wallet error and lose its reason.
        if let kratos = decoded(Components.Schemas.KratosError.self)?.error {
            return (kratos.id, kratos.code, kratos.message, nil, kratos.reason)
        }
        if let wallet = decoded(Components.Schemas.ErrorResponse.self)?.error {
            return (wallet.id, wallet.code, wallet.message, wallet.field, nil)
        }
        return nil
    }
    var errorCode: Int? { failure?.code }
    var errorField: String? { failure?.field }

    /// The body as untyped JSON.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:] }
}

extension TestClientProtocol {
    func call(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = appHeaders(), body: Any? = nil,
              raw: String? = nil) async throws -> JSONAnswer {
        let buffer: ByteBuffer? = if let raw { ByteBuffer(string: raw) } else if let body {
            ByteBuffer(data: try JSONSerialization.data(withJSONObject: body))
        } else { nil }
        return try await execute(uri: uri, method: method, headers: headers, body: buffer) { response in
            JSONAnswer(status: response.status, headers: response.headers, data: Data(buffer: response.body))
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
    return try await TestClock.$ofServer.withValue(clock) {
        if live { return try await PatientLiveServer.run(app.application) { client in try await body(app, client) } }
        return try await app.application.test(.router) { client in try await body(app, client) }
    }
}
