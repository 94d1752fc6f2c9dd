/// A sentence the server says to a customer, kept as a key and its values so that it can be said
/// in the customer's language when it is answered.
///
/// The key is the English sentence with `{1}`, `{2}`, … in place of the interpolated values, in
/// the manner of Foundation's `String.LocalizationValue`: `"The password must have at least
/// \(minimum) characters."` has the key `The password must have at least {1} characters.` and the
/// argument `"8"`. A translation names the same placeholders in any order. Interpolated values are
/// data (a length, a field's name, a question), never English words to be translated: a sentence
/// that varies by a word is two sentences.
public struct LocalizableText: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The English sentence with numbered placeholders: the key of the texts' catalogs.
    public let key: String
    /// The interpolated values, in order (`{1}` is the first).
    public let arguments: [String]

    public init(stringLiteral value: String) {
        key = value
        arguments = []
    }

    public init(stringInterpolation: StringInterpolation) {
        key = stringInterpolation.key
        arguments = stringInterpolation.arguments
    }

    /// A text that is no catalog's sentence (a library's own description): it is answered as it is,
    /// unless a catalog happens to hold it as a key.
    public init(verbatim text: String) {
        key = text
        arguments = []
    }

    /// The sentence in English.
    public var english: String { render(key) }

    public var description: String { english }

    /// `template` (this text's key in some language) with its placeholders replaced by the arguments.
    public func render(_ template: String) -> String {
        var values: [String: String] = [:]
        for (index, argument) in arguments.enumerated() { values[String(index + 1)] = argument }
        return Self.fill(template, with: values)
    }

    /// `template` with each `{name}` whose name `values` holds replaced by its value, in one pass
    /// (a value that itself contains braces is not read again); other braces stay as they are.
    public static func fill(_ template: String, with values: [String: String]) -> String {
        guard template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                result += value
                rest = after[after.index(after: close)...]
            } else {
                result.append("{")
                rest = after
            }
        }
        return result + rest
    }

    /// Two sentences said as one (a message written over two lines of code).
    public static func + (lhs: LocalizableText, rhs: LocalizableText) -> LocalizableText {
        var renumbered: [String: String] = [:]
        for index in rhs.arguments.indices { renumbered[String(index + 1)] = "{\(lhs.arguments.count + index + 1)}" }
        return LocalizableText(key: lhs.key + fill(rhs.key, with: renumbered), arguments: lhs.arguments + rhs.arguments)
    }

    private init(key: String, arguments: [String]) {
        self.key = key
        self.arguments = arguments
    }

    /// Builds the key and the arguments of an interpolated literal.
    public struct StringInterpolation: StringInterpolationProtocol {
        var key = ""
        var arguments: [String] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            key.reserveCapacity(literalCapacity + 3 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { key += literal }

        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            arguments.append(value.description)
            key += "{\(arguments.count)}"
        }
    }
}
