import HTTPTypes
import HummingbirdTesting
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// The headers the edge reads (`EdgeHeaders`), as a client sends them: names in any case, a
/// header sent twice, and the one DPoP proof a request may carry.
@Suite struct EdgeHeadersTests {
    static let path = "/v1/auth/session"

    @Test func twoProofsAreRefusedNamingTheHeader() async throws {
        try await DPoPTests().withBoundServer { app, client in
            let device = TestDeviceKey()
            let token = try await DPoPTests().boundLogin(app, client, key: device)
            var headers = appHeaders().with(proof: device.proof("GET", Self.path, token: token), dpopToken: token)
            headers.append(HTTPField(name: HTTPField.Name("DPoP")!, value: device.proof("GET", Self.path, token: token)))
            let answer = try await client.call(.get, Self.path, headers: headers)
            #expect(answer.status == .unauthorized)
            #expect(answer.failure?.id == "invalid_dpop_proof")
            #expect(answer.failure?.field == "DPoP")
            #expect(answer.failure?.message == "Send one DPoP proof.")
        }
    }

    /// Header names are case-insensitive (RFC 9110 §5.1): a client writing them in lower case
    /// proves its key, and its sane request id is answered back.
    @Test func headerNamesAreReadInAnyCase() async throws {
        try await DPoPTests().withBoundServer { app, client in
            let device = TestDeviceKey()
            let token = try await DPoPTests().boundLogin(app, client, key: device)
            var headers = HTTPFields()
            for field in appHeaders() { headers.append(HTTPField(name: HTTPField.Name(field.name.rawName.lowercased())!, value: field.value)) }
            headers.append(HTTPField(name: HTTPField.Name("dpop")!, value: device.proof("GET", Self.path, token: token)))
            headers.append(HTTPField(name: HTTPField.Name("authorization")!, value: "DPoP \(token)"))
            headers.append(HTTPField(name: HTTPField.Name("x-request-id")!, value: "edge-headers-1"))
            let answer = try await client.call(.get, Self.path, headers: headers)
            #expect(answer.status == .ok, "\(answer.json)")
            #expect(answer.headers[HTTPField.Name("X-Request-ID")!] == "edge-headers-1")
        }
    }

    /// `Authorization` sent twice reads as its values joined (RFC 9110 §5.3), a token that names no
    /// session: the request is refused as one without a live session, not answered for either line.
    @Test func twoAuthorizationLinesAreNoToken() async throws {
        try await withServer { app, client in
            let token = try await AuthFixture.nonceSession(app, client)
            #expect(try await client.call(.get, Self.path, headers: appHeaders(session: token)).status == .ok)
            var headers = appHeaders(session: token)
            headers.append(HTTPField(name: .authorization, value: "Bearer \(token)"))
            let answer = try await client.call(.get, Self.path, headers: headers)
            #expect(answer.status == .unauthorized)
            #expect(answer.failure?.id == "not_logged_in")
        }
    }
}
