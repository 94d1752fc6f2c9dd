import Foundation

/// libFuzzer's entry: one input through every parser of attacker-controlled WebAuthn bytes that
/// needs only Foundation (the CBOR decoder in both modes, authenticator data, attestation objects).
/// A refusal is an answer; a crash, a trap (overflow, out-of-range index) or a sanitizer report is a
/// finding, and so is a broken invariant, which is checked with `fatalError` below.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let strict = try? CBORDecoder.decode(data, canonicalMapOrder: true)
    let lenient = try? CBORDecoder.decode(data)
    // The canonical order only narrows what is accepted, never changes a value.
    if let strict, strict != lenient { fatalError("canonical and lenient decoding disagree") }
    if let (value, length) = try? CBORDecoder.decodePrefix(data) {
        if length < 1 || length > data.count { fatalError("prefix length \(length) of \(data.count) bytes") }
        if (length == data.count) != (lenient != nil) { fatalError("prefix and whole decoding disagree") }
        if length == data.count, value != lenient { fatalError("prefix and whole decoding differ") }
    }
    if let authenticatorData = try? AuthenticatorData(data) {
        if authenticatorData.bytes != data { fatalError("authenticator data does not keep its bytes") }
        if let credential = authenticatorData.attestedCredential,
           credential.credentialID.isEmpty || credential.credentialID.count > AuthenticatorData.maximumCredentialIDLength {
            fatalError("credential id length \(credential.credentialID.count)")
        }
    }
    _ = try? AttestationObject(data)
    return 0
}
