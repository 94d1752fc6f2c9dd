import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing

/// Issue 24: what the hot paths skip now keeps every check. A device's proofs share their
/// protected header, which is parsed once; the issuer's configuration reads are encoded once.
@Suite struct HotPathTests {
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.publicURL = TestDeviceKey.base
    }

    /// Once a key's header is known, a proof with that same header text is still checked whole:
    /// a signature by another key, another URL, another method or a used jti is refused.
    @Test func aKnownHeaderStillChecksEveryProof() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let device = TestDeviceKey(), thief = TestDeviceKey()
            let path = "/v1/enrollment/mfa-questions"
            func read(_ proof: String) async throws -> JSONAnswer {
                try await client.call(.get, path, headers: appHeaders().with(proof: proof))
            }
            #expect(try await read(device.proof("GET", path)).status == .ok, "the header is known from now on")
            #expect(try await read(device.proof("GET", path)).status == .ok)
            let forged = try await read(device.proof("GET", path, signer: thief.key))
            #expect(forged.status == .unauthorized && forged.failure?.id == "invalid_dpop_proof", "\(forged.json)")
            #expect(try await read(device.proof("GET", path, htu: TestDeviceKey.base + "/v1/devices")).status == .unauthorized)
            #expect(try await read(device.proof("POST", path)).status == .unauthorized)
            let once = device.proof("GET", path)
            #expect(try await read(once).status == .ok)
            #expect(try await read(once).failure?.id == "invalid_dpop_proof", "a replay")
            let known = String(once.prefix { $0 != "." })
            #expect(try await read(known + ".e30." + String(once.split(separator: ".")[2])).status == .unauthorized,
                    "a known header with claims that are not a proof's")
            #expect(try await read(known + ".a.b.c").status == .unauthorized, "four parts")
            let padded = device.proof("GET", path)
            #expect(try await read(padded + "=").status == .unauthorized, "padding is not base64url")
            #expect(try await read(padded.replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "-", with: "+")).status
                    != .ok || !padded.contains(where: { $0 == "_" || $0 == "-" }), "nor the standard alphabet")
        }
    }

    /// The configuration reads answer the same bytes every time, and the edge still runs first.
    @Test func aStoredAnswerStillPassesTheEdge() async throws {
        try await withServer { _, client in
            let first = try await client.call(.get, "/v1/enrollment/mfa-questions")
            let second = try await client.call(.get, "/v1/enrollment/mfa-questions")
            #expect(first.status == .ok && second.data == first.data)
            #expect(try await client.call(.get, "/v1/enrollment/mfa-questions", headers: [:]).status == .unauthorized,
                    "no app signature")
            let xml = try await client.call(.get, "/v1/enrollment/password-configuration",
                                            headers: appHeaders().with(accept: "application/xml"))
            #expect(xml.status != .ok, "a client that does not take JSON gets the generated handler's answer: \(xml.status)")
            let problem = try await client.call(.get, "/v1/enrollment/password-configuration",
                                                headers: appHeaders().with(accept: "application/problem+json"))
            #expect(problem.status != .ok, "nor one that takes another JSON type: \(problem.status)")
            let anyCase = try await client.call(.get, "/v1/enrollment/password-configuration",
                                                headers: appHeaders().with(accept: "Application/JSON; q=0.9, text/html"))
            #expect(anyCase.status == .ok)
        }
    }
}

extension HTTPFields {
    func with(accept: String) -> HTTPFields {
        var headers = self
        headers[.accept] = accept
        return headers
    }
}
