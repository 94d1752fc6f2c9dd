import Foundation

/// libFuzzer's entry for the base64url decoder (`Base64URL`, which reads proofs, keys, seals and
/// nonces a client sends): one input read as text and as a value. A crash, a trap or a sanitizer
/// report is a finding, and so is a broken invariant of the strict codec, checked with
/// `fatalError` below: a text that decodes is the one spelling of its value, a substring decodes
/// as the same text on its own, and every value comes back from its encoding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: bytes, count: count)
    let text = String(decoding: input, as: UTF8.self)
    if let value = Base64URL.decode(text), Base64URL.encode(value) != text {
        fatalError("\(text.debugDescription) decodes but is not the spelling of its value")
    }
    if !text.isEmpty {
        let inner = text.dropFirst()
        if Base64URL.decode(inner) != Base64URL.decode(String(inner)) { fatalError("a substring of \(text.debugDescription) decodes otherwise") }
    }
    let value = Data(input)
    if Base64URL.decode(Base64URL.encode(value)) != value { fatalError("\(Array(input)) does not come back from its encoding") }
    return 0
}
