import Foundation

/// The blanks the rules trim, spelled out: Foundation's `.whitespaces` and
/// `.whitespacesAndNewlines` are not the same on every platform (swift-corelibs-foundation counts
/// U+200B, Apple's documentation names general category Zs and the tab), and the served contract
/// must say exactly what the server trims.
public enum Blanks {
    /// The tab, U+0020, U+00A0, U+1680, U+2000–U+200B, U+202F, U+205F, U+3000: `.whitespaces` as
    /// the server has it.
    public static let spaces = CharacterSet(charactersIn: "\t \u{A0}\u{1680}\u{202F}\u{205F}\u{3000}")
        .union(CharacterSet(charactersIn: "\u{2000}"..."\u{200B}"))
    /// `spaces` and the line breaks U+000A–U+000D, U+0085, U+2028, U+2029: `.whitespacesAndNewlines`
    /// as the server has it.
    public static let spacesAndNewlines = spaces.union(CharacterSet(charactersIn: "\n\u{0B}\u{0C}\r\u{85}\u{2028}\u{2029}"))

    /// `spaces` as the body of an ECMA-262 character class.
    public static let spacesClass = #"\t \u00a0\u1680\u2000-\u200b\u202f\u205f\u3000"#
    /// `spacesAndNewlines` as the body of an ECMA-262 character class.
    public static let spacesAndNewlinesClass = spacesClass + #"\n\u000b\f\r\u0085\u2028\u2029"#
}
