import Foundation

/// The languages a customer reads, best first, as an app or a browser says them
/// (`Accept-Language`, RFC 9110 §12.5.4), and the choice among the languages the issuer provides.
///
/// Tags are compared by their primary language in lower case (`de-CH` reads `de`), which is the
/// granularity of the shipped translations; a region-specific translation is a later refinement.
public struct LanguagePreference: Sendable, Equatable {
    /// Primary language subtags, lower case, best first, without repeats; `*` and malformed
    /// entries are left out.
    public let languages: [String]

    public init(_ languages: [String]) {
        var seen = Set<String>()
        self.languages = languages.compactMap(Self.primary).filter { seen.insert($0).inserted }
    }

    /// Reads an `Accept-Language` value; weights order the tags (ties keep the header's order) and
    /// a weight of 0 excludes one. Anything unreadable gives an empty preference.
    public init(acceptLanguage header: String?) {
        let ranked = (header ?? "").split(separator: ",").prefix(32).enumerated().compactMap { index, item -> (String, Double, Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag.count <= 35 else { return nil }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                guard let value = Double(parameter.dropFirst(2)), (0...1).contains(value) else { return nil }
                weight = value
            }
            return weight > 0 ? (tag, weight, index) : nil
        }
        self.init(ranked.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }.map(\.0))
    }

    /// The first of the customer's languages that `available` holds, else `fallback`.
    public func best(of available: Set<String>, fallback: String) -> String {
        languages.first(where: available.contains) ?? fallback
    }

    /// The header value that records this preference (`de, en`), or nil when it is empty.
    public var headerValue: String? { languages.isEmpty ? nil : languages.joined(separator: ", ") }

    private static func primary(_ tag: String) -> String? {
        let primary = tag.split(separator: "-", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard (2...8).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return primary
    }
}
