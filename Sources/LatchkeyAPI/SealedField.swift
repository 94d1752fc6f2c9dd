import Foundation
import LatchkeyCore

/// A request field that may carry a sealed credential (`x-latchkey-sealed` of its operation): a
/// JSON pointer into the request body, `*` standing for any key or array index, and what it holds.
/// The SDK seals these fields and the server opens them, from the one generated table `all`.
public struct SealedField: Sendable, Equatable {
    public let pointer: String
    public let kind: SealedValueKind

    public init(pointer: String, kind: SealedValueKind) {
        self.pointer = pointer
        self.kind = kind
    }

    /// Rewrites the string values of `fields` in the JSON `body`: `change` gets each value's
    /// concrete pointer (RFC 6901, as the seal binds it), its kind and its value, and answers the
    /// value to keep. Answers the body written again (one parse: a key given twice is kept once,
    /// as it was read) and whether a value changed.
    /// - Throws: what `change` throws; `SealedFieldError.notJSON` for a body that is not a JSON object.
    public static func rewrite(_ body: Data, fields: [SealedField],
                               _ change: (_ pointer: String, _ kind: SealedValueKind, _ value: String) throws -> String) throws
        -> (body: Data, changed: Bool) {
        guard var root = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? [String: Any] else {
            throw SealedFieldError.notJSON
        }
        var changed = false
        for field in fields {
            let tokens = field.pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            root = try visit(root, tokens[...], path: "") { pointer, value in
                let new = try change(pointer, field.kind, value)
                if new != value { changed = true }
                return new
            } as? [String: Any] ?? root
        }
        return (try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), changed)
    }

    private static func visit(_ node: Any, _ tokens: ArraySlice<String>, path: String,
                              _ change: (String, String) throws -> String) throws -> Any {
        guard let token = tokens.first else {
            guard let value = node as? String else { return node }
            return try change(path, value)
        }
        let rest = tokens.dropFirst()
        if var object = node as? [String: Any] {
            let keys = token == "*" ? Array(object.keys) : [token].filter { object[$0] != nil }
            for key in keys {
                object[key] = try visit(object[key]!, rest, path: path + "/" + escape(key), change)
            }
            return object
        }
        if var array = node as? [Any] {
            let indices = token == "*" ? Array(array.indices) : Int(token).map { [$0] }?.filter(array.indices.contains) ?? []
            for index in indices {
                array[index] = try visit(array[index], rest, path: path + "/\(index)", change)
            }
            return array
        }
        return node
    }

    /// RFC 6901: `~` as `~0`, `/` as `~1`.
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

/// A body whose sealable fields could not be read.
public enum SealedFieldError: Error, Equatable {
    case notJSON
}
