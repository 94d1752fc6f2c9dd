import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import LatchkeyAdminHTTP
import LatchkeyDomain
import LatchkeyServer
import Testing
import Yams

/// The admin API the server applies is its document (`Server/Sources/LatchkeyAdminAPI/openapi.yaml`):
/// the generated table of operations is current (even where `Scripts/generate-api --check` did
/// not run), and the server serves each of them, behind the admin edge, and no other method on
/// their paths.
@Suite struct AdminContractTests {
    /// The admin document, decoded as far as the server applies it.
    struct Document: Decodable {
        struct Schema: Decodable {
            let reference: String?
            let type: String?
            let format: String?
            let pattern: String?
            let minLength: Int?
            let maxLength: Int?
            let minimum: Int?
            let maximum: Int?
            let choices: [String]?
            let defaultValue: Scalar?

            enum CodingKeys: String, CodingKey {
                case reference = "$ref", type, format, pattern, minLength, maxLength, minimum, maximum, choices = "enum",
                     defaultValue = "default"
            }
        }

        /// A schema's `default`: an integer, or anything else (a string's, a boolean's).
        enum Scalar: Decodable, Equatable {
            case integer(Int), other

            init(from decoder: any Decoder) throws {
                self = (try? decoder.singleValueContainer().decode(Int.self)).map(Scalar.integer) ?? .other
            }

            var integer: Int? { if case .integer(let value) = self { value } else { nil } }
        }

        struct Parameter: Decodable {
            let name: String
            let location: String
            let schema: Schema

            enum CodingKeys: String, CodingKey { case name, location = "in", schema }
        }

        struct Operation: Decodable {
            let operationId: String
            let role: String?
            let parameters: [Parameter]?

            enum CodingKeys: String, CodingKey { case operationId, role = "x-latchkey-role", parameters }
        }

        struct Components: Decodable { let schemas: [String: Schema] }

        /// Each path's operations by lower-case method (the admin document's path items hold
        /// nothing else).
        let paths: [String: [String: Operation]]
        let components: Components

        static func load() throws -> Document {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Sources/LatchkeyAdminAPI/openapi.yaml")
            return try YAMLDecoder().decode(Document.self, from: String(contentsOf: url, encoding: .utf8))
        }

        /// The schema itself, a `$ref` followed to the component it names.
        func resolved(_ schema: Schema) -> Schema {
            schema.reference.flatMap { components.schemas[String($0.split(separator: "/").last!)] } ?? schema
        }
    }

    /// Each operation's id and role (`x-latchkey-role`) are the document's, at the document's
    /// method and path, and no operation is missing or left over.
    @Test func operationsAreTheDocuments() throws {
        let document = try Document.load()
        var declared: [String: String] = [:]
        for (path, item) in document.paths {
            for (method, operation) in item {
                let role = try #require(operation.role.flatMap(OperatorRole.init), "\(method) \(path) declares a role")
                declared["\(method.uppercased()) \(path)"] = "\(operation.operationId) \(role.rawValue)"
            }
        }
        let generated = AdminRoute.all.map { ("\($0.method) \($0.path)", "\($0.operation.id) \($0.operation.role.rawValue)") }
        #expect(Dictionary(uniqueKeysWithValues: generated) == declared)
        #expect(AdminRoute.all.count == declared.count && AdminOperation.allCases.count == declared.count)
        // The reads whose events carry the reason `read` (a user's latest events leave them out).
        #expect(Set(AdminOperation.allCases.filter(\.readsUsers)) == [.listUsers, .getUser, .listUserFactors, .listEvents])
    }

    /// What `AdminInput` checks of each path and query parameter is what the admin document declares.
    @Test func parameterRulesAreTheDocuments() throws {
        let document = try Document.load()
        var checked = 0
        for (_, item) in document.paths {
            for (_, operation) in item {
                let route = AdminRoute.of(try #require(AdminOperation(rawValue: operation.operationId)))
                for parameter in operation.parameters ?? [] {
                    let schema = document.resolved(parameter.schema), (id, name) = (operation.operationId, parameter.name)
                    let rule = parameter.location == "path" ? route.pathRules[name] : route.queryRules[name]
                    let documented = try #require(rule, "\(id) \(name) has a rule")
                    #expect(documented.dateTime == (schema.format == "date-time"), "\(id) \(name) date-time")
                    #expect(documented.pattern == schema.pattern, "\(id) \(name) pattern")
                    #expect(documented.lengths == schema.minLength.map { $0...(schema.maxLength ?? .max) }, "\(id) \(name) lengths")
                    // A boolean's choices are its two spellings.
                    let choices = schema.type == "boolean" ? ["true", "false"] : schema.choices
                    #expect(documented.choices == choices.map(Set.init), "\(id) \(name) enum")
                    #expect(documented.integer == (schema.type == "integer"), "\(id) \(name) integer")
                    #expect(documented.bounds == schema.minimum.map { $0...(schema.maximum ?? .max) }, "\(id) \(name) bounds")
                    #expect(documented.integerDefault == (schema.type == "integer" ? schema.defaultValue?.integer : nil), "\(id) \(name) default")
                    checked += 1
                }
            }
        }
        #expect(checked == 46, "every parameter")
    }

    /// Every operation of the document is served behind the admin edge (a call without a key is
    /// a 401 with the Bearer challenge, not a 404), and each of its paths answers every other
    /// method with 405 and exactly the document's methods in `Allow`: the server serves no route
    /// on them that the document does not declare.
    @Test func theServedRoutesAreTheDocuments() async throws {
        let document = try Document.load()
        let samples = ["userId": "user-1", "deviceId": "device-1", "sessionId": "0123456789abcdef", "keyId": "key1"]
        try await withServer(configure: AdminAPITests.configure) { _, client in
            for (template, item) in document.paths {
                var path = template
                for (name, value) in samples { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
                for method in item.keys {
                    let answer = try await client.call(HTTPRequest.Method(method.uppercased())!, path, headers: [:])
                    #expect(answer.status == .unauthorized && answer.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true,
                            "\(method) \(template): \(answer.status)")
                }
                let allowed = Set(item.keys.map { $0.uppercased() })
                for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] where !allowed.contains(method) {
                    let answer = try await client.call(HTTPRequest.Method(method)!, path, headers: [:])
                    #expect(answer.status == .methodNotAllowed, "\(method) \(template): \(answer.status)")
                    let allow = Set(answer.headers[.allow]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? [])
                    #expect(allow == allowed, "\(method) \(template): Allow \(allow)")
                }
            }
        }
    }
}
