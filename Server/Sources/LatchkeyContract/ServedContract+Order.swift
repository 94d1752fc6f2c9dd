import Foundation
import LatchkeyDomain
import Yams

extension ServedContract {
    /// The document's top-level fields in the order a reader expects them: the version, the
    /// description and the operations first, as OpenAPI documents open, then the other fields of
    /// the OpenAPI Object in the order the specification lists them. Fields not named here (an
    /// extension `x-…`) follow, sorted. Every nested mapping is written with its keys sorted, so
    /// the served text is the same on every server and every run.
    static let topLevelOrder = ["openapi", "info", "paths", "jsonSchemaDialect", "servers", "webhooks", "components",
                                "security", "tags", "externalDocs"]

    /// The keys of `document` in `topLevelOrder`, then the others sorted.
    static func orderedKeys(of document: [String: Any]) -> [String] {
        topLevelOrder.filter { document[$0] != nil } + document.keys.filter { !topLevelOrder.contains($0) }.sorted()
    }

    /// `document` in YAML, its top-level fields in `topLevelOrder`.
    /// - Throws: `YamlError` when a value cannot be written as YAML.
    static func yaml(_ document: [String: Any]) throws -> String {
        let pairs = try orderedKeys(of: document).map { key -> (Node, Node) in
            guard let value = document[key] as? NodeRepresentable else {
                throw YamlError.representer(problem: "The contract's \(key) cannot be written as YAML.")
            }
            return (Node(key), try value.represented())
        }
        // Not the emitter's `sortKeys`, which would sort the top level too: the nested mappings
        // come from dictionaries, which Yams represents with their keys sorted.
        return try Yams.serialize(node: Node(pairs, Tag(.map)), width: -1)
    }

    /// `document` in pretty-printed JSON, its top-level fields in `topLevelOrder` (a JSON writer
    /// orders an object's keys only by sorting them, so the outer object is joined here).
    /// - Throws: when a value is not one JSON can hold.
    static func json(_ document: [String: Any]) throws -> Data {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes, .fragmentsAllowed]
        let members = try orderedKeys(of: document).map { key in
            let name = String(decoding: try JSONSerialization.data(withJSONObject: key, options: options), as: UTF8.self)
            let value = String(decoding: try JSONSerialization.data(withJSONObject: document[key]!, options: options), as: UTF8.self)
            // The value's own lines, one level deeper than the outer object's members.
            return "  " + name + " : " + value.replacingOccurrences(of: "\n", with: "\n  ")
        }
        return Data(("{\n" + members.joined(separator: ",\n") + "\n}").utf8)
    }
}
