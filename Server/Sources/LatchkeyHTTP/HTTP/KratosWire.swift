import Foundation
import LatchkeyAPI
import LatchkeyDomain
import LatchkeyServerAPI

/// Builds the Ory Kratos shapes of flows, sessions and identities from Latchkey's records.
package enum KratosWire {
    package typealias Flow = Components.Schemas.SelfServiceFlow
    package typealias Node = Components.Schemas.UiNode
    package typealias Text = Components.Schemas.UiText

    /// A flow with its form nodes; `messages` go on the flow (`field` nil) or on the named node.
    package static func flow(_ flow: FlowRecord, baseURL: String, messages: [(field: String?, message: FlowMessage)] = []) -> Flow {
        let action = flow.kind == .registration ? "/a/self-service/registration?flow=" : "/a/self-service/login?flow="
        let fields: [(String, String, String?, String?, String, Int)] = flow.kind == .registration
            ? [("traits.phone", "tel", "tel", flow.phone, "Phone", 1_070_002), ("traits.email", "email", "email", nil, "E-Mail", 1_070_002),
               ("traits.name.first", "text", nil, nil, "First Name", 1_070_002), ("traits.name.last", "text", nil, nil, "Last Name", 1_070_002),
               ("password", "password", "new-password", nil, "Password", 1_070_001)]
            : [("identifier", "text", nil, nil, "Phone or E-Mail", 1_070_004), ("password", "password", "current-password", nil, "Password", 1_070_001)]
        var nodes = [node("csrf_token", type: "hidden", group: "default", value: "", required: true, label: nil)]
        for (name, type, autocomplete, value, label, labelID) in fields {
            var item = node(name, type: type, group: name == "password" ? "password" : "default", value: value,
                            required: name != "traits.email", label: Text(id: labelID, text: label, _type: "info"))
            item.attributes.autocomplete = autocomplete
            item.messages = messages.filter { $0.field == name }.map { text($0.message) }
            nodes.append(item)
        }
        nodes.append(node("method", type: "submit", group: "password", value: "password", required: false,
                          label: Text(id: flow.kind == .registration ? 1_040_001 : 1_010_001,
                                      text: flow.kind == .registration ? "Sign up" : "Sign in", _type: "info")))
        let names = Set(fields.map(\.0))
        let flowMessages = messages.filter { message in message.field.map { !names.contains($0) } ?? true }
        return Flow(id: flow.id, _type: "api", expiresAt: flow.expiresAt, issuedAt: flow.createdAt, requestUrl: flow.requestURL,
                    state: "choose_method",
                    ui: .init(action: baseURL + action + flow.id, method: "POST", nodes: nodes,
                              messages: flowMessages.map { text($0.message) }))
    }

    private static func node(_ name: String, type: String, group: String, value: String?, required: Bool, label: Text?) -> Node {
        Node(_type: "input", group: group,
             attributes: .init(name: name, _type: type, value: value, required: required, disabled: false, nodeType: "input"),
             messages: [], meta: .init(label: label))
    }

    package static func text(_ message: FlowMessage) -> Text { Text(id: message.id, text: message.text, _type: message.type) }

    package static func identity(_ user: UserRecord, baseURL: String) -> Components.Schemas.KratosIdentity {
        .init(id: user.id, schemaId: "default", schemaUrl: baseURL + "/a/schemas/default",
              state: user.status == .active ? "active" : "inactive",
              traits: .init(name: .init(first: user.firstName, last: user.lastName), phone: user.phone,
                            email: user.email.isEmpty ? nil : user.email),
              createdAt: user.createdAt, updatedAt: user.updatedAt)
    }

    package static func session(_ session: SessionRecord, of user: UserRecord, baseURL: String) -> Components.Schemas.KratosSession {
        return .init(id: sessionID(session.digest), active: true, expiresAt: session.expiresAt, authenticatedAt: session.createdAt,
                     issuedAt: session.createdAt, authenticatorAssuranceLevel: "aal1",
                     authenticationMethods: [.init(method: "password", aal: "aal1", completedAt: session.createdAt)],
                     identity: identity(user, baseURL: baseURL))
    }

    /// A stable, non-secret id for a session: its digest's first 128 bits as a UUID.
    package static func sessionID(_ digest: String) -> String {
        let hex = Array(digest.prefix(32))
        guard hex.count == 32 else { return digest }
        return [hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]].map { String($0) }.joined(separator: "-")
    }
}
