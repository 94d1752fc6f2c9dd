import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyContract
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The device-binding rules belong to the operation a request is routed to, and
/// a path spelled any other way than its canonical form reaches no operation (404).
@Suite struct CanonicalPathTests {
    /// Every operation of the contract: method, path template, and whether it is Kratos's.
    static let operations: [(method: HTTPRequest.Method, path: String)] = {
        try! OpenAPIDocument.wallet().paths.flatMap { path, operations in
            operations.keys.map { method in (HTTPRequest.Method(rawValue: method.uppercased())!, path) }
        }.sorted { "\($0.path) \($0.method)" < "\($1.path) \($1.method)" }
    }()

    /// A concrete path of a template (each `{parameter}` filled in).
    static func concrete(_ template: String) -> String {
        template.split(separator: "/").map { $0.hasPrefix("{") ? "p1" : String($0) }.reduce("") { $0 + "/" + $1 }
    }

    /// The non-canonical spellings of a concrete path: trailing slash, leading and inner empty
    /// segments, dot segments, a percent-encoded letter.
    static func variants(of path: String) -> [String] {
        var segments = path.split(separator: "/").map(String.init)
        var variants = [path + "/", "/" + path, "/" + segments[0] + "/" + path.dropFirst(segments[0].count + 1),
                        "/" + segments[0] + "/." + path.dropFirst(segments[0].count + 1),
                        "/" + segments[0] + "/x/.." + path.dropFirst(segments[0].count + 1)]
        let last = segments.count - 1
        let letter = segments[last].unicodeScalars.first!
        segments[last] = String(format: "%%%02X", letter.value) + segments[last].dropFirst()
        variants.append("/" + segments.joined(separator: "/"))
        return variants
    }

    /// The configuration attacked: the default `deviceBinding: required`.
    static func reviewed(_ configuration: inout ServerConfiguration) {
        configuration.publicURL = TestDeviceKey.base
        configuration.issuer.deviceBinding = .required
    }

    /// Attack: `POST /v1/enrollment/users/` (another spelling of the path) without any proof, to
    /// register under `deviceBinding: required` with a nonce bound to no device. Every spelling but
    /// the canonical one is 404 and writes nothing.
    @Test(arguments: TestEnvironment.engines)
    func anotherSpellingDoesNotSkipTheProof(engine: String) async throws {
        try await withServer(engine: engine, live: true, configure: Self.reviewed) { app, client in
            for (index, path) in ["/v1/enrollment/users/", "//v1/enrollment/users", "/v1//enrollment/users",
                                  "/v1/enrollment/%75sers"].enumerated() {
                let email = "mallory\(index)@example.com"
                let answer = try await client.call(.post, path, body: registrationBody(email: email))
                #expect(answer.status == .notFound, "\(path): \(answer.status) \(answer.json)")
                #expect(try await app.store.user(issuer: app.configuration.issuer.id, emailNormalized: email) == nil, "\(path)")
            }
            let canonical = try await client.call(.post, "/v1/enrollment/users", body: registrationBody(email: "mallory@example.com"))
            #expect(canonical.status == .unauthorized)
            #expect(canonical.failure?.id == "invalid_dpop_proof")
        }
    }

    /// Attack: `POST /v1/auth/login/pin/` (another spelling of the path) with a proof that carries
    /// no nonce, to skip the nonce and the database's record of the proof.
    @Test(arguments: TestEnvironment.engines)
    func anotherSpellingDoesNotSkipTheNonce(engine: String) async throws {
        try await withServer(engine: engine, live: true, configure: Self.reviewed) { app, client in
            let key = TestDeviceKey()
            _ = try await AuthFixture.keyEnrolledSession(app, client, key: key)
            for path in ["/v1/auth/login/pin/", "//v1/auth/login/pin", "/v1/auth//login/pin", "/v1/auth/login/./pin"] {
                let answer = try await client.call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path)),
                                                   body: ["pin": "314159"])
                #expect(answer.status == .notFound, "\(path): \(answer.status) \(answer.json)")
                #expect(answer.login?.sessionToken == nil)
            }
            let path = "/v1/auth/login/pin"
            let canonical = try await client.call(.post, path, headers: appHeaders().with(proof: key.proof("POST", path)),
                                                  body: ["pin": "314159"])
            #expect(canonical.status == .unauthorized)
            #expect(canonical.failure?.id == "use_dpop_nonce")
        }
    }

    /// Every operation of the document, every non-canonical spelling of its path: 404 from the
    /// router's own answer, as for a path no operation has, while the canonical path reaches the
    /// operation.
    @Test func everyOperationAnswersOnlyItsCanonicalPath() async throws {
        try await withServer(live: true) { _, client in
            for operation in Self.operations {
                let path = Self.concrete(operation.path)
                let body: Any? = operation.method == .get || operation.method == .delete ? nil : [String: Any]()
                let canonical = try await client.call(operation.method, path, body: body)
                #expect(!Self.isUnrouted(canonical), "\(operation.method) \(path) should reach its operation: \(canonical.json)")
                for variant in Self.variants(of: path) {
                    let answer = try await client.call(operation.method, variant, body: body)
                    #expect(answer.status == .notFound && Self.isUnrouted(answer),
                            "\(operation.method) \(variant): \(answer.status) \(answer.json)")
                }
            }
        }
    }

    /// Whether an answer is the router's "no such route" (either envelope).
    static func isUnrouted(_ answer: JSONAnswer) -> Bool {
        let text = (answer.failure?.message ?? "") + " " + (answer.failure?.reason ?? "")
        return answer.status == .notFound && text.contains("There is no route")
    }

    /// Every operation's declared rules are enforced from its policy: with `deviceBinding:
    /// required`, an operation whose proof is required refuses a request without one, and an
    /// operation that needs the nonce refuses a proof without it (and names the nonce to use).
    @Test func everyOperationIsGuardedByItsPolicy() async throws {
        try await withServer(live: true, configure: Self.reviewed) { _, client in
            let key = TestDeviceKey()
            for policy in OperationPolicy.all {
                let method = HTTPRequest.Method(rawValue: policy.method)!
                let path = Self.concrete(policy.path)
                let body: Any? = method == .get || method == .delete ? nil : [String: Any]()
                let headers = APIRouteGroupsPath.isKratos(path) ? [.contentType: "application/json"] : appHeaders()
                let bare = try await client.call(method, path, headers: headers, body: body)
                if policy.proof == .required {
                    #expect(bare.status == .unauthorized && bare.failure?.id == "invalid_dpop_proof",
                            "\(policy.operationID) without a proof: \(bare.status) \(bare.json)")
                } else {
                    #expect(bare.failure?.id != "invalid_dpop_proof", "\(policy.operationID): \(bare.json)")
                }
                let proved = try await client.call(method, path, headers: headers.with(proof: key.proof(policy.method, path)), body: body)
                if policy.nonce {
                    #expect(proved.status == .unauthorized && proved.failure?.id == "use_dpop_nonce",
                            "\(policy.operationID) without a nonce: \(proved.status) \(proved.json)")
                    #expect(proved.headers[HTTPField.Name("DPoP-Nonce")!] != nil)
                } else {
                    #expect(proved.failure?.id != "use_dpop_nonce", "\(policy.operationID): \(proved.json)")
                }
            }
        }
    }
}

/// The Kratos-compatible paths, as the server groups them.
enum APIRouteGroupsPath {
    static func isKratos(_ path: String) -> Bool { path.hasPrefix("/a/") || path.hasPrefix("/identity/") }
}
