import Foundation
import LatchkeyCore
import Testing

/// The one base64url codec: unpadded output, and a decoder that takes exactly one spelling of a
/// value (what proofs, keys, seals and nonces need).
@Suite struct Base64URLTests {
    /// RFC 4648 §10's vectors, in the URL-safe alphabet without padding.
    @Test func encodesTheRFCVectorsWithoutPadding() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Data(plain.utf8).base64URL == encoded)
            #expect(Data(base64URL: encoded) == Data(plain.utf8))
        }
    }

    /// The bytes that standard base64 spells `+` and `/` are `-` and `_`.
    @Test func usesTheURLSafeAlphabet() {
        let bytes = Data([0xFB, 0xFF, 0xBF, 0xFE])
        #expect(bytes.base64EncodedString() == "+/+//g==")
        #expect(bytes.base64URL == "-_-__g")
        #expect(Data(base64URL: "-_-__g") == bytes)
    }

    @Test func everyLengthAndByteRoundTrips() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...70 {
            let bytes = Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            let text = bytes.base64URL
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(text == bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
            #expect(Data(base64URL: text) == bytes)
            #expect(Data(base64URL: Substring(text)) == bytes)
        }
        let all = Data((0...255).map { UInt8($0) })
        #expect(Data(base64URL: all.base64URL) == all)
    }

    @Test func theEmptyTextIsTheEmptyValue() {
        #expect(Data(base64URL: "") == Data())
        #expect(Data().base64URL == "")
    }

    @Test func refusesPadding() {
        for text in ["Zg==", "Zm8=", "Zg=", "=", "====", "Zm9v===="] {
            #expect(Data(base64URL: text) == nil, "\(text)")
        }
    }

    @Test func refusesTheStandardAlphabetsPlusAndSlash() {
        for text in ["+_-_", "-/-_", "+/+//g"] {
            #expect(Data(base64URL: text) == nil, "\(text)")
        }
    }

    @Test func refusesWhitespaceAndOtherCharacters() {
        for text in [" Zm9v", "Zm9v ", "Zm 9v", "Zm9v\n", "Zm\r\n9v", "\tZm9v", "Zm9v.", "Zm9%", "Zm9é", "Zm9\u{0}"] {
            #expect(Data(base64URL: text) == nil, "\(text)")
        }
    }

    /// A length of 4n + 1 leaves a character that encodes no whole byte.
    @Test func refusesLengthsNoByteCountEncodes() {
        for text in ["Z", "Zm9vY", "Zm9vYmFyZ"] {
            #expect(Data(base64URL: text) == nil, "\(text)")
        }
    }

    /// `Zh` and `Zg` both start with the bits of `f`; only `Zg` (unused bits zero) is its spelling.
    @Test func refusesNonCanonicalLastCharacters() {
        #expect(Data(base64URL: "Zg") == Data("f".utf8))
        for text in ["Zh", "Zv", "Zm9", "Zm-", "Zm9vYmF"] {
            #expect(Data(base64URL: text) == nil, "\(text)")
        }
        #expect(Data(base64URL: "Zm8") == Data("fo".utf8))
    }

    /// A substring decodes by its own bounds, not its base string's.
    @Test func decodesASubstringByItsBounds() {
        let token = "aGVhZGVy.cGF5bG9hZA.c2ln"
        let parts = token.split(separator: ".")
        #expect(parts.map { Data(base64URL: $0).map { String(decoding: $0, as: UTF8.self) } } == ["header", "payload", "sig"])
    }
}
