import Foundation
import LatchkeyDomain
import LatchkeyCore
import Yams

/// The OpenAPI document this server serves (`GET /openapi.yaml`, `/openapi.json`): the contract
/// as written, with this issuer's rules written into its request schemas — required fields,
/// lengths and patterns from the field metadata, the password, PIN and MFA rules, sealed values —
/// so a client generated from it in any language refuses what this server refuses. What JSON
/// Schema cannot say (a confirmation equal to its value, the password history, a total over the
/// stored profile) is written in the schemas' descriptions (`docs/api.md`, "The served contract").
public struct ServedContract: Sendable {
    /// The document in YAML and in JSON.
    public let yaml: String
    public let json: Data

    /// - Throws: when the bundled document is missing or does not parse (a build or install
    ///   defect), or cannot be written.
    public init(issuer: IssuerSettings, serverURL: String? = nil) throws {
        guard var document = try Yams.load(yaml: try Self.document()) as? [String: Any] else {
            throw ConfigurationError(key: "openapi", message: "The bundled contract is not a YAML mapping.")
        }
        let rules = IssuerSchemas(issuer: issuer, metadata: try issuer.fieldMetadata(checking: false))
        Self.write(rules, into: &document)
        if let serverURL { document["servers"] = [["url": serverURL, "description": "This server."]] }
        yaml = try Self.yaml(document)
        json = try Self.json(document)
    }

    /// The contract as written (`Sources/LatchkeyAPI/openapi.yaml`), bundled with this target as
    /// the resource `openapi.yaml` (a copy `Scripts/generate-api` keeps current).
    static func document() throws -> String {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw ConfigurationError(key: "openapi", message: "The contract's resource openapi.yaml is missing from the server's bundle.")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Replaces the request schemas whose rules are the issuer's.
    static func write(_ rules: IssuerSchemas, into document: inout [String: Any]) {
        edit(&document, ["info"]) { info in
            info["x-latchkey-issuer"] = rules.issuer.id
            info["description"] = ((info["description"] as? String) ?? "") + "\n\nServed by this server for the issuer "
                + "\"\(rules.issuer.name)\": its field metadata, password, PIN and MFA rules are written into the request schemas."
        }
        edit(&document, ["components", "schemas"]) { schemas in
            schemas["UserProfile"] = rules.registrationProfile
            schemas["UserProfileUpdate"] = rules.profileUpdate
            schemas["RegisterCustomerRequest"] = rules.customerRegistration
            schemas["RegistrationAddress"] = rules.address(.create)
            schemas["AddressUpdate"] = rules.address(.update)
            schemas["TextJSON"] = IssuerSchemas.textJSON
            for (schema, property, value) in [
                ("PasswordChangeRequest", "newPassword", rules.password),
                ("ExpiredPasswordRequest", "newPassword", rules.password),
                ("UpdateRegistrationFlowBody", "password", rules.password),
                ("PasscodeChangeRequest", "newPasscode", rules.passcode),
                ("MFAAnswersRequest", "mfaAnswers", rules.mfaAnswers),
            ] {
                edit(&schemas, [schema, "properties"]) { $0[property] = value }
            }
        }
    }

    /// Applies `change` to the mapping at `path` (created when missing).
    static func edit(_ object: inout [String: Any], _ path: ArraySlice<String>, _ change: (inout [String: Any]) -> Void) {
        guard let key = path.first else { return change(&object) }
        var inner = object[key] as? [String: Any] ?? [:]
        edit(&inner, path.dropFirst(), change)
        object[key] = inner
    }

    static func edit(_ object: inout [String: Any], _ path: [String], _ change: (inout [String: Any]) -> Void) {
        edit(&object, path[...], change)
    }
}
