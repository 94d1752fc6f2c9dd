import Foundation
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

@Suite struct ErrorEnvelopeTests {
    @Test func appContextIsRequiredOnV1() async throws {
        try await withServer { _, client in
            let missing = try await client.call(.get, "/v1/enrollment/mfa-questions", headers: [:])
            #expect(missing.status == .unauthorized, "the app signature is the wallet API's API key (contract fix)")
            #expect(missing.errorCode == 400)
            #expect(missing.errorField == "X-Application-Signature")
            let bad = try await client.call(.get, "/v1/enrollment/mfa-questions",
                                            headers: [HTTPField.Name("X-Application-Signature")!: "not-a-uuid"])
            #expect(bad.status == .unauthorized)
            #expect(bad.errorField == "X-Application-Signature")
        }
    }

    @Test func frameworkErrorsUseTheEnvelope() async throws {
        try await withServer { _, client in
            let unknown = try await client.call(.get, "/v1/nothing-here")
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == 404)
            let wrongMethod = try await client.call(.delete, "/v1/enrollment/users")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.errorCode == 405)
            #expect(wrongMethod.headers[.allow] == "POST")
            let malformed = try await client.call(.post, "/v1/enrollment/users", raw: "{\"userProfile\": ")
            #expect(malformed.status == .badRequest)
            #expect(malformed.errorCode == 400)
            let wrongType = try await client.call(.post, "/v1/enrollment/users", body: ["userProfile": ["firstName": 42]])
            #expect(wrongType.status == .badRequest)
            #expect(wrongType.errorField?.contains("firstName") == true)
            let array = try await client.call(.post, "/v1/enrollment/users", raw: "[]")
            #expect(array.status == .badRequest)
            #expect(array.errorField == "body")
            let text = try await client.call(.post, "/v1/enrollment/users",
                                             headers: appHeaders().replacing(.contentType, with: "text/plain"), raw: "hello")
            #expect(text.status == .badRequest)
            let missingProfile = try await client.call(.post, "/v1/enrollment/users", body: ["other": 1])
            #expect(missingProfile.status == .badRequest)
            #expect(missingProfile.errorField == "userProfile")
            let huge = try await client.call(.post, "/v1/enrollment/users",
                                             raw: "{\"userProfile\": {\"firstName\": \"\(String(repeating: "x", count: 70_000))\"}}")
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorCode == 413)
        }
    }
}

extension HTTPFields {
    func replacing(_ name: HTTPField.Name, with value: String) -> HTTPFields {
        var copy = self
        copy[name] = value
        return copy
    }
}
