/// The issuer's expressions run as ICU's on the server and the phone, and as ECMA-262's (or a
/// language's own) in a client generated from the served contract. They agree on a common part
/// only, which `latchkey config check` holds the issuer to: literal characters, character classes
/// and ranges, groups, alternation, lookarounds, greedy and lazy quantifiers, and the escapes of
/// punctuation, `\t \n \r \f`, `\xhh` and `\uhhhh`. What means something else somewhere (`\d`,
/// `\w`, `\s` and `\b` are Unicode in ICU and ASCII in ECMA-262; inline flags; named groups and
/// backreferences; possessive quantifiers and atomic groups; set operations; anchors inside the
/// expression) is refused. `.` is allowed: the served contract spells out ICU's meaning of it.
extension FieldMetadata {
    /// Why `regex` is outside the common part, or nil.
    public static func portabilityProblem(_ regex: String) -> String? {
        let characters = Array(regex)
        var index = 0, inClass = false
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\":
                guard let next = at(1) else { return "A lone \\ at the end." }
                if next == "x" || next == "u" {
                    let digits = next == "x" ? 2 : 4
                    let hex = (1...digits).compactMap { at(1 + $0) }.filter(\.isHexDigit)
                    guard hex.count == digits else { return "Write \\\(next) with exactly \(digits) hexadecimal digits." }
                    index += 2 + digits
                    continue
                }
                guard "tnrf".contains(next) || (next.isASCII && (next.isPunctuation || next.isSymbol)) else {
                    return "\\\(next) means different things in ICU and ECMA-262 (write a class such as [0-9] instead)."
                }
                index += 2
                continue
            case "[" where inClass:
                return "Nested character classes are ICU's own."
            case "[":
                inClass = true
                if at(1) == "^" { index += 1 }
                // Literal in ICU and Python, an empty class in ECMA-262.
                if at(1) == "]" { return "A ] first in a class means different things in ICU and ECMA-262: escape it." }
            case "]" where inClass:
                inClass = false
            case "&" where inClass && at(1) == "&", "-" where inClass && at(1) == "-":
                return "Set operations (&&, --) in classes are ICU's own."
            case "(" where !inClass && at(1) == "?":
                let rest = String(characters[(index + 2)...].prefix(2))
                guard rest.hasPrefix(":") || rest.hasPrefix("=") || rest.hasPrefix("!") || rest == "<=" || rest == "<!" else {
                    return "Only (?:…) and lookarounds: inline flags, named, atomic and comment groups differ between dialects."
                }
            case "+" where !inClass && index > 0 && "*+?}".contains(characters[index - 1]) && (index < 2 || characters[index - 2] != "\\"):
                return "Possessive quantifiers are not ECMA-262's."
            case "^" where !inClass && index != 0, "$" where !inClass && index != characters.count - 1:
                return "^ and $ only at the ends: the whole value is matched anyway."
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
