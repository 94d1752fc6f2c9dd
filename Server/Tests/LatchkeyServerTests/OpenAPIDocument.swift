import Foundation
import Yams

/// The operations of an OpenAPI document as the tests compare them with the server: per path and
/// method, the operation's id and the policy the server applies (`x-latchkey-policy`), decoded
/// from the document's YAML.
struct OpenAPIDocument: Decodable {
    struct Operation: Decodable {
        let operationId: String
        /// `x-latchkey-policy`: the device-binding and session rules of a wallet operation.
        let policy: Policy?

        enum CodingKeys: String, CodingKey {
            case operationId
            case policy = "x-latchkey-policy"
        }
    }

    struct Policy: Decodable {
        let proof: String
        let nonce: Bool
        let record: Bool
        let session: String
        let privileged: Bool
        let hashes: Int?
    }

    /// The methods a path item may hold operations under; its other keys (its parameters, a
    /// summary) are not operations.
    static let methods: Set<String> = ["get", "post", "put", "patch", "delete"]

    /// Each path's operations by lower-case method.
    let paths: [String: [String: Operation]]

    /// The wallet's contract, `Sources/LatchkeyAPI/openapi.yaml` of the repository.
    static func wallet() throws -> OpenAPIDocument {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/LatchkeyAPI/openapi.yaml")
        return try YAMLDecoder().decode(OpenAPIDocument.self, from: String(contentsOf: url, encoding: .utf8))
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private enum CodingKeys: String, CodingKey { case paths }

    init(from decoder: any Decoder) throws {
        let items = try decoder.container(keyedBy: CodingKeys.self).nestedContainer(keyedBy: Key.self, forKey: .paths)
        var paths: [String: [String: Operation]] = [:]
        for path in items.allKeys {
            let item = try items.nestedContainer(keyedBy: Key.self, forKey: path)
            var operations: [String: Operation] = [:]
            for method in item.allKeys where Self.methods.contains(method.stringValue) {
                operations[method.stringValue] = try item.decode(Operation.self, forKey: method)
            }
            paths[path.stringValue] = operations
        }
        self.paths = paths
    }
}
