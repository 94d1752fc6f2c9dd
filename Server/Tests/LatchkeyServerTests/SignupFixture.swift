import Foundation
import LatchkeyAPI
import LatchkeyCore
import HTTPTypes
import HummingbirdTesting
import LatchkeyDomain
import LatchkeySQL
import LatchkeyServer
import Testing

/// The phone sign-up steps over HTTP, with the document's bodies.
enum SignupFixture {
    static let phone = "+439999999999"
    static let json: HTTPFields = [.contentType: "application/json"]

    static func configure(_ configuration: inout ServerConfiguration) {
        // The document's example password is `000000`: shorter than the default and on the common list.
        configuration.issuer.password.passwordMinLength = 6
        configuration.issuer.rejectCommonPasswords = false
    }

    static func newFlow(_ client: any TestClientProtocol) async throws -> String {
        let flow = try await client.call(.get, "/a/self-service/registration/api", headers: [:])
        #expect(flow.status == .ok)
        return try #require(flow.decoded(Components.Schemas.SelfServiceFlow.self)?.id)
    }

    static func sendCode(_ client: any TestClientProtocol, flow: String, phone: String = phone) async throws -> JSONAnswer {
        try await client.call(.post, "/identity/verification/flow/phone", headers: json,
                              body: ["phoneNumber": phone, "phoneType": "PRIMARY", "flowId": flow, "flowType": "REGISTRATION"])
    }

    static func checkCode(_ client: any TestClientProtocol, flow: String, otp: String) async throws -> JSONAnswer {
        try await client.call(.patch, "/identity/verification/flow/phone", headers: json,
                              body: ["phoneType": "PRIMARY", "flowId": flow, "otp": otp, "flowType": "REGISTRATION"])
    }

    /// The newest code the courier holds for `phone`.
    static func code(_ app: LatchkeyApplication, phone: String = phone, excluding earlier: Set<String> = []) async throws -> String {
        let row = try #require(try await app.store.outboxMessages().last {
            $0.template == "otp" && $0.recipient == phone && !earlier.contains($0.id)
        })
        return try #require(app.cipher.open(row)?.data["code"])
    }

    static func finish(_ client: any TestClientProtocol, flow: String, phone: String = phone, password: String = "000000",
                       email: String? = nil, headers: HTTPFields = json) async throws -> JSONAnswer {
        var traits: [String: Any] = ["name": ["first": "Pay User", "last": "Test"], "phone": phone]
        if let email { traits["email"] = email }
        return try await client.call(.post, "/a/self-service/registration?flow=\(flow)", headers: headers,
                                     body: ["method": "password", "traits": traits, "password": password])
    }

    /// A verified flow for `phone`.
    static func verifiedFlow(_ app: LatchkeyApplication, _ client: any TestClientProtocol, phone: String = phone) async throws -> String {
        let flow = try await newFlow(client)
        let earlier = Set(try await app.store.outboxMessages().map(\.id))
        #expect(try await sendCode(client, flow: flow, phone: phone).status == .created)
        #expect(try await checkCode(client, flow: flow, otp: try await code(app, phone: phone, excluding: earlier)).status == .ok)
        return flow
    }

    /// The messages of a flow answered with 400: the flow's and every node's, by id.
    static func messageIDs(_ answer: JSONAnswer) -> [Int] {
        guard let ui = answer.decoded(Components.Schemas.SelfServiceFlow.self)?.ui else { return [] }
        return ui.messages.map(\.id) + ui.nodes.flatMap { $0.messages.map(\.id) }
    }
}
