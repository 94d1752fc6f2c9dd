/// The character set described by an issuer's `validCharacters` / `regularExpression` setting,
/// such as `a-zA-Z0-9~!@#$%^&*()-{}`.
///
/// Only letter–letter and digit–digit pairs form ranges (`a-z`, `0-9`); any other `-` is literal,
/// so `()-{}` means the four characters and a hyphen, as an issuer writing it intends.
public struct CharacterClass: Sendable, Equatable {
    public let pattern: String
    /// The scalars of the class (a served contract writes them as a JSON Schema character class).
    public let ranges: [ClosedRange<Unicode.Scalar>]

    public init(_ pattern: String) {
        self.pattern = pattern
        let scalars = Array(pattern.unicodeScalars)
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var index = 0
        while index < scalars.count {
            let start = scalars[index]
            if index + 2 < scalars.count, scalars[index + 1] == "-",
               Self.formsRange(start, scalars[index + 2]) {
                ranges.append(start...scalars[index + 2])
                index += 3
            } else {
                ranges.append(start...start)
                index += 1
            }
        }
        self.ranges = ranges
    }

    private static func formsRange(_ low: Unicode.Scalar, _ high: Unicode.Scalar) -> Bool {
        guard low <= high else { return false }
        let kinds: [ClosedRange<Unicode.Scalar>] = ["a"..."z", "A"..."Z", "0"..."9"]
        return kinds.contains { $0.contains(low) && $0.contains(high) }
    }

    /// Whether the scalar belongs to the class.
    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        ranges.contains { $0.contains(scalar) }
    }

    /// Whether every character of the string belongs to the class.
    public func allows(_ string: String) -> Bool {
        string.unicodeScalars.allSatisfy(contains)
    }
}
