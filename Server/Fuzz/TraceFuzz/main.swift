/// libFuzzer's entry for the trace headers a client sends (`TraceContextGrammar`): one input read
/// as a `traceparent` and as a `tracestate`. A refusal is an answer; a crash or a trap is a
/// finding, and so is an accepted value outside what the propagator can read, checked with
/// `fatalError` below.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    if TraceContextGrammar.isTraceparent(input) {
        let allowed = Set("0123456789abcdef-".utf8)
        if input.count != 55 || !input.allSatisfy(allowed.contains) { fatalError("accepted traceparent \(input)") }
    }
    let text = String(decoding: input, as: UTF8.self)
    if TraceContextGrammar.isTracestate(text) {
        let members = text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        if members.count > 32 || !text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) || text.utf8.first == UInt8(ascii: " ") {
            fatalError("accepted tracestate \(text.debugDescription)")
        }
    }
    return 0
}
