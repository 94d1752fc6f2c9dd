import Foundation
import LatchkeyCore
import Testing

/// The issuer's expressions are held to what ICU and ECMA-262 read alike, and the
/// served contract's blank class is the server's.
@Suite struct FieldPortabilityTests {
    @Test func expressionsOutsideTheCommonPartAreRefused() {
        for regex in [#"\d{5}"#, #"\w+"#, #"\s"#, #"\bword"#, #"\p{L}+"#, "(?i)abc", "(?<name>a)", "(?>a)", "a++", "a*+",
                      "[[a-z]&&[^b]]", "[a--b]", #"(a)\1"#, "a$b", "a^b", "[]a]", "[^]a]", #"\x4"#, #"\u00e"#, #"\Aa"#] {
            #expect(FieldMetadata.portabilityProblem(regex) != nil, "\(regex)")
        }
        for regex in ["[0-9]{5}(-[0-9]{4})?", "EX-[0-9]{4}", "[A-Za-z .'-]+", "a.b", #"\."#, "(?:ab)+?", #"\u00e9"#, #"\x41"#,
                      "(?=a)a", "(?!b)[a-z]", "(?<=a)b", "^[0-9]+$", #"[\]\[]"#, "[+*?]+", #"\t\n"#] {
            #expect(FieldMetadata.portabilityProblem(regex) == nil, "\(regex)")
        }
    }

    @Test func theConfigurationCheckNamesTheProblem() {
        let field = FieldMetadata(key: "ZIP_CODE", name: "Zip", order: 1, regex: #"\d{5}"#)
        #expect(field.problems.contains { $0.property == "regex" && $0.message.contains("ICU and ECMA-262") })
    }

    /// Every scalar: the served classes and the sets the rules trim agree, and the sets are what
    /// Foundation has on this platform (swift-corelibs-foundation, the server's).
    @Test func theBlankClassesAreTheRulesBlanks() throws {
        let spaces = try NSRegularExpression(pattern: "^[" + Blanks.spacesClass + "]$")
        let all = try NSRegularExpression(pattern: "^[" + Blanks.spacesAndNewlinesClass + "]$")
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar), range = NSRange(text.startIndex..., in: text)
            #expect((spaces.firstMatch(in: text, range: range) != nil) == Blanks.spaces.contains(scalar), "U+\(String(value, radix: 16))")
            #expect((all.firstMatch(in: text, range: range) != nil) == Blanks.spacesAndNewlines.contains(scalar), "U+\(String(value, radix: 16))")
            #if os(Linux)
            #expect(Blanks.spaces.contains(scalar) == CharacterSet.whitespaces.contains(scalar))
            #expect(Blanks.spacesAndNewlines.contains(scalar) == CharacterSet.whitespacesAndNewlines.contains(scalar))
            #endif
        }
        #expect(!EnrollmentRules.isAcceptableAnswer("\n\u{2028}"), "only line breaks is the empty answer")
        #expect(EnrollmentRules.isAcceptableAnswer(" Rex\n"))
    }
}

/// The app signature's shape is checked without parsing: a UUID's text form exactly
/// (swift-corelibs-foundation's `UUID(uuidString:)` is no such check: it reads the text with
/// `sscanf`'s `%x` and takes spaces, signs and stray letters).
@Suite struct AppSignatureShapeTests {
    @Test func theShapeCheckIsFoundations() {
        var samples = ["3F2504E0-4F89-11D3-9A0C-0305E82C3301", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "", "3F2504E0-4F89-11D3-9A0C-0305E82C330",
                       "3F2504E0-4F89-11D3-9A0C-0305E82C33011", "3F2504E04F89-11D3-9A0C-0305E82C3301-", "3G2504E0-4F89-11D3-9A0C-0305E82C3301",
                       "3F2504E0_4F89-11D3-9A0C-0305E82C3301", "{3F2504E0-4F89-11D3-9A0C-0305E82C3301}", " 3F2504E0-4F89-11D3-9A0C-0305E82C330"]
        for _ in 0..<200 {
            var text = Array(UUID().uuidString)
            text[Int.random(in: 0..<36)] = Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E)))
            samples.append(String(text))
        }
        let uuid = try! NSRegularExpression(pattern: "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
        for sample in samples {
            let shaped = uuid.firstMatch(in: sample, range: NSRange(sample.startIndex..., in: sample)) != nil
            #expect(AppContextHeader.isUUID(sample) == shaped, "\(sample)")
            if shaped { #expect(UUID(uuidString: sample) != nil, "what Foundation reads too") }
        }
    }
}
