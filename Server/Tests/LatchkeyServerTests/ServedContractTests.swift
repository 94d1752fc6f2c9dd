import Foundation
import HummingbirdTesting
import LatchkeyAPI
import LatchkeyCore
import LatchkeyContract
import LatchkeyDomain
import LatchkeyServer
import LatchkeyTestSupport
import Testing
import Yams

/// The server serves its contract with the issuer's rules written in; what a served
/// schema admits, the server's rule accepts, and what it refuses, the rule refuses. CI's
/// schemathesis run checks the whole document against a running server; these tests check the
/// document and, value by value, that its patterns agree with the rules of `LatchkeyCore`.
@Suite struct ServedContractTests {
    /// The issuer of CI's contract check (`.ci/fuzz-issuer.yaml`).
    static let ciIssuer: IssuerSettings = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let lines = try! String(contentsOf: root.appendingPathComponent(".ci/fuzz-issuer.yaml"), encoding: .utf8)
        return try! ServerConfiguration.parse(yaml: "issuer:\n" + lines).issuer
    }()

    static func configure(_ configuration: inout ServerConfiguration) {
        let rules = ciIssuer
        configuration.issuer.password = rules.password
        configuration.issuer.passcode = rules.passcode
        configuration.issuer.mfa = rules.mfa
        configuration.issuer.fields = rules.fields
    }

    typealias Object = [String: Any]

    static func served(_ client: any TestClientProtocol) async throws -> Object {
        let json = try await client.call(.get, "/openapi.json", headers: [:])
        #expect(json.status == .ok && json.headers[.contentType] == "application/json")
        let yaml = try await client.execute(uri: "/openapi.yaml", method: .get) { String(buffer: $0.body) }
        let fromYAML = try #require(try Yams.load(yaml: yaml) as? Object)
        let document = try #require(try JSONSerialization.jsonObject(with: json.data) as? Object)
        #expect(try JSONSerialization.data(withJSONObject: fromYAML, options: .sortedKeys)
                == JSONSerialization.data(withJSONObject: document, options: .sortedKeys), "the YAML and the JSON say the same")
        return document
    }

    static func schema(_ document: Object, _ path: String...) -> Object {
        var node: Any? = (document["components"] as? Object)?["schemas"]
        for key in path { node = (node as? Object)?[key] }
        return node as? Object ?? [:]
    }

    /// A property's schema without the `null` an optional property also admits.
    static func present(_ property: Any?) -> Object? {
        guard let schema = property as? Object else { return nil }
        guard let branches = schema["anyOf"] as? [Object], branches.count == 2, branches[1]["type"] as? String == "null" else { return schema }
        return branches[0]
    }

    /// Whether `value` meets a string schema's lengths (code points) and pattern, read by ICU.
    static func admits(_ schema: Object, _ value: String) -> Bool {
        let count = value.unicodeScalars.count
        if let min = schema["minLength"] as? Int, count < min { return false }
        if let max = schema["maxLength"] as? Int, count > max { return false }
        guard let pattern = schema["pattern"] as? String else { return true }
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }

    @Test func theIssuersRulesAreWrittenIn() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let document = try await Self.served(client)
            let profile = Self.schema(document, "UserProfile")
            #expect(Set(profile["required"] as? [String] ?? []) == ["additionalCustomerInformation", "addressInformation", "email",
                                                                     "externalId", "firstName", "lastName", "mfaAnswers",
                                                                     "passcode", "password"])
            let properties = try #require(profile["properties"] as? Object)
            #expect(properties["confirmPassword"] == nil, "JSON Schema cannot say it equals the password")
            let answers = try #require(properties["mfaAnswers"] as? Object)
            #expect(answers["minProperties"] as? Int == 2 && answers["maxProperties"] as? Int == 2)
            #expect((answers["propertyNames"] as? Object)?["enum"] as? [String] == Self.ciIssuer.mfa.questions.map(\.mfaQuestion))
            #expect(answers["required"] as? [String] == ["What was the name of your first pet?"])
            #expect(Self.schema(document, "RegistrationAddress")["required"] as? [String] == ["city"])
            let additional = try #require(Self.present(properties["additionalCustomerInformation"]))
            #expect(additional["required"] as? [String] == ["loyalty_id"])
            #expect(Self.schema(document, "UserProfileUpdate")["required"] as? [String] == ["externalId"])
            let servers = try #require(document["servers"] as? [Object])
            #expect((servers.first?["url"] as? String)?.hasPrefix("http://127.0.0.1") == true, "this server's base URL")
            // The wallet's answers keep their generic shapes: stored values predate rules.
            #expect(Self.schema(document, "AddressInformation")["required"] == nil)
        }
    }

    /// Every 4-character PIN of digits: the served schema and `PasscodeConfigurations` agree.
    @Test func thePINSchemaIsTheRule() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let document = try await Self.served(client)
            let pin = Self.schema(document, "PasscodeChangeRequest", "properties", "newPasscode")
            var accepted = 0
            for number in 0..<10_000 {
                let value = String(format: "%04d", number)
                let rule = (try? Self.ciIssuer.passcode.validate(value, field: "pin")) != nil
                #expect(Self.admits(pin, value) == rule, "\(value)")
                if rule { accepted += 1 }
            }
            #expect(accepted > 3_000)
            for value in ["123", "12345", "12a4", "９８７６"] { #expect(!Self.admits(pin, value), "\(value)") }
        }
    }

    /// Passwords, common ones included in any case: the served schema and the server's rules agree.
    @Test func thePasswordSchemaIsTheRule() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let document = try await Self.served(client)
            let password = Self.schema(document, "PasswordChangeRequest", "properties", "newPassword")
            let common = ["password12", "PASSWORD12", "Password12", "Qwerty1234", "Abc1234567", "Sunshine12"]
            let others = ["Correct4Horse", "short1A", "alllowercase12", "ALLUPPER1234", "NoDigitsHere", "Ünïcode123A",
                          "Spaces 12 AB", "Valid!Pass99", String(repeating: "Aa1", count: 14), "x" + String(repeating: "Aa1", count: 13)]
            var refusedCommon = 0
            for value in common + others {
                let rule = (try? Self.ciIssuer.validateNewPassword(value, field: "password")) != nil
                #expect(Self.admits(password, value) == rule, "\(value)")
                if !rule, common.contains(value) { refusedCommon += 1 }
            }
            #expect(refusedCommon >= 3, "the list has some of them, in any case")
        }
    }

    /// The issuer's fields: a value the schema admits is one the metadata accepts.
    @Test func theFieldSchemasAreTheRules() async throws {
        try await withServer(configure: Self.configure) { _, client in
            let document = try await Self.served(client)
            let metadata = try Self.ciIssuer.fieldMetadata()
            let properties = Self.schema(document, "UserProfile", "properties")
            let external = Self.present(properties["externalId"])
            let loyalty = (Self.present(properties["additionalCustomerInformation"])?["properties"] as? Object)?["loyalty_id"] as? Object
            let zip = Self.present(Self.schema(document, "RegistrationAddress", "properties")["zipCode"])
            let cases: [(Object?, FieldMetadata?, [String])] = [
                (external, ProfileMetadata.field("EXTERNAL_ID", in: metadata.userProfile), ["EX-1234", "EX-12345", "ex-1234", "", "EX-12a4"]),
                (loyalty, ProfileMetadata.field("loyalty_id", in: metadata.additionalCustomerInformation),
                 ["123456", "12345", "123456789", "12a456", "12345678"]),
                (zip, ProfileMetadata.field("ZIP_CODE", in: metadata.addressInformation),
                 ["12345", "12345-6789", "1234", "12345-678", ""]),
            ]
            for (schema, rule, values) in cases {
                let schema = try #require(schema), rule = try #require(rule)
                let branch = (schema["anyOf"] as? [Object])?.last ?? schema
                for value in values {
                    let accepted = (try? rule.validate(value, field: rule.key, operation: .create)) != nil
                    let admitted = schema["anyOf"] != nil && value.isEmpty || Self.admits(branch, value)
                    #expect(admitted == accepted, "\(rule.key): \(value)")
                }
            }
        }
    }

    /// A registration that follows the served rules is a wallet; confirmations need not be sent.
    @Test(arguments: TestEnvironment.engines)
    func aProfileOfTheServedRulesRegisters(engine: String) async throws {
        try await withServer(engine: engine, configure: Self.configure) { _, client in
            let body: Object = ["userProfile": [
                "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com", "password": "Analytical1843",
                "passcode": "2580", "externalId": "EX-1815", "addressInformation": ["city": "London", "zipCode": "12345"],
                "additionalCustomerInformation": ["loyalty_id": "123456"],
                "mfaAnswers": ["What was the name of your first pet?": "Rex", "What is your favorite book?": "Sybil"],
            ] as Object]
            let answer = try await client.call(.post, "/v1/enrollment/users", body: body)
            #expect(answer.status == .created, "\(answer.json)")
        }
    }

    /// Lengths count code points, as JSON Schema's do: 30 accented letters of two scalars each are 60.
    @Test func lengthsCountCodePoints() async throws {
        try await withServer { _, client in
            let name = String(repeating: "e\u{301}", count: 30)
            let answer = try await client.call(.post, "/v1/enrollment/users", body: registrationBody { $0["firstName"] = name })
            #expect(answer.status == .badRequest && answer.errorField == "userProfile.firstName", "\(answer.json)")
        }
    }

    /// The served document opens as every OpenAPI document does — `openapi`, `info`, `paths` — in
    /// YAML and in JSON, and its other top-level fields follow in the specification's order.
    @Test func theDocumentOpensWithItsVersionInfoAndPaths() async throws {
        try await withServer { _, client in
            let yaml = try await client.execute(uri: "/openapi.yaml", method: .get) { String(buffer: $0.body) }
            // A top-level key is a line that starts with neither a blank nor a sequence's dash.
            let yamlKeys = yaml.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("-") }
                .map { String($0.prefix { $0 != ":" }) }
            let json = try await client.execute(uri: "/openapi.json", method: .get) { String(buffer: $0.body) }
            // Pretty-printed JSON indents the top-level keys by exactly two spaces.
            let jsonKeys = json.split(separator: "\n").filter { $0.hasPrefix("  \"") }
                .map { String($0.dropFirst(3).prefix { $0 != "\"" }) }
            for (format, keys) in [("yaml", yamlKeys), ("json", jsonKeys)] {
                #expect(Array(keys.prefix(3)) == ["openapi", "info", "paths"], "\(format): \(keys)")
                #expect(keys.filter { ["servers", "components", "security", "tags"].contains($0) }
                        == ["servers", "components", "security", "tags"], "\(format): \(keys)")
                #expect(Set(keys) == ["openapi", "info", "paths", "servers", "components", "security", "tags"], "\(format): \(keys)")
            }
        }
    }

    /// The default issuer's document builds too, with the whole common-password list it needs.
    @Test func theDefaultIssuersDocument() throws {
        let contract = try ServedContract(issuer: IssuerSettings())
        let document = try #require(try JSONSerialization.jsonObject(with: contract.json) as? Object)
        let password = Self.schema(document, "UserProfile", "properties", "password")
        #expect(Self.admits(password, "correct-horse-42") && !Self.admits(password, "Password123"))
        #expect(contract.yaml.hasPrefix("openapi: "), "the document opens with its OpenAPI version")
    }
}
