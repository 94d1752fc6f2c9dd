import LatchkeyHTTP
import Testing
import W3CTraceContext

/// What `TraceHeaders` keeps, the OpenTelemetry propagator reads: every `traceparent` and
/// `tracestate` it lets through decodes with the W3C Trace Context library that swift-otel's
/// propagator uses (`TraceContext(traceParentHeaderValue:traceStateHeaderValue:)`), to the same
/// `traceparent`. A value the library refused would be logged by the propagator with its carrier,
/// which is why the server checks them first. Thousands of near-misses of well-formed headers
/// are tried, from a fixed seed.
@Suite struct TraceHeadersLibraryTests {
    static let parent = Array(TraceHeadersTests.parent.utf8)
    /// Bytes a mutation writes into a `traceparent`: its own alphabet and its nearest mistakes.
    static let parentBytes = Array("0123456789abcdefABCDEFxz-_ .\u{0}\u{7F}".utf8) + [0xC3, 0xA9, 0xFF]

    @Test func everyKeptTraceparentDecodes() throws {
        var random = SplitMix64(seed: 39)
        var kept = 0, dropped = 0
        for round in 0..<20_000 {
            var candidate = Self.parent
            for _ in 0...(round % 3) {
                switch random.next() % 8 {
                case 0: candidate.removeLast(Int(random.next() % 3))
                case 1: candidate.append(Self.parentBytes[Int(random.next() % UInt64(Self.parentBytes.count))])
                default:
                    // A position is rewritten, the trace or span id at times to all zeros.
                    let position = Int(random.next() % UInt64(max(candidate.count, 1)))
                    if candidate.indices.contains(position) {
                        candidate[position] = Self.parentBytes[Int(random.next() % UInt64(Self.parentBytes.count))]
                    }
                    if random.next() % 50 == 0, candidate.count == 55 {
                        let id = random.next() % 2 == 0 ? 3..<35 : 36..<52
                        candidate.replaceSubrange(id, with: repeatElement(UInt8(ascii: "0"), count: id.count))
                    }
                }
            }
            let text = String(decoding: candidate, as: UTF8.self)
            guard let headers = TraceHeaders(traceparent: text, tracestate: nil) else { dropped += 1; continue }
            kept += 1
            let context = try TraceContext(traceParentHeaderValue: headers.parent)
            #expect(context.traceParentHeaderValue == headers.parent, "\(text.debugDescription)")
        }
        // Both sides of the grammar were tried.
        #expect(kept > 1_000 && dropped > 1_000, "kept \(kept), dropped \(dropped)")
    }

    /// Members, separators and values of `tracestate`, well-formed and not.
    static let keys = ["a", "k1", "vendor", "tenant@system", "0t@s", "k_-*/9", "Vendor", "@s", "t@", "t@s@x", "1vendor", "t@0sys",
                       "t@systemistoolong", "", " k", "k ", "k\u{E9}", String(repeating: "k", count: 256), String(repeating: "k", count: 257)]
    static let values = ["v", "a b", "t61rcWkgMzE", "", "=", "x=y", "\u{7F}", "caf\u{E9}", " v", "v ", "~!", "a,b",
                         String(repeating: "v", count: 256), String(repeating: "v", count: 257)]
    static let separators = [",", ", ", ",   ", ",,", " ,", "\t,", ",\t"]

    @Test func everyKeptTracestateDecodes() throws {
        var random = SplitMix64(seed: 40)
        func pick(_ choices: [String]) -> String { choices[Int(random.next() % UInt64(choices.count))] }
        var kept = 0, dropped = 0
        for _ in 0..<20_000 {
            // Well-formed members but for one or two, so that each odd key or value is tried in a
            // list otherwise kept, and lists near the limit of 32 members are reached.
            let count = 1 + Int(random.next() % 34)
            var members = (0..<count).map { "k\($0)=v\($0)" }
            for _ in 0...(random.next() % 2) {
                let index = Int(random.next() % UInt64(count))
                let key = random.next() % 2 == 0 ? pick(Self.keys) : "k\(index)"
                let value = random.next() % 2 == 0 ? pick(Self.values) : "v\(index)"
                members[index] = random.next() % 40 == 0 ? key : key + "=" + value
            }
            var state = members[0]
            for member in members.dropFirst() { state += (random.next() % 5 == 0 ? pick(Self.separators) : ",") + member }
            guard let headers = TraceHeaders(traceparent: TraceHeadersTests.parent, tracestate: state) else {
                Issue.record("a well-formed traceparent was dropped with \(state.debugDescription)")
                continue
            }
            guard let keptState = headers.state else { dropped += 1; continue }
            kept += 1
            let context = try TraceContext(traceParentHeaderValue: headers.parent, traceStateHeaderValue: keptState)
            #expect(context.traceParentHeaderValue == TraceHeadersTests.parent)
            // Every member is read (a key sent twice is one entry).
            let keys = Set(keptState.split(separator: ",").map { $0.drop { $0 == " " }.prefix { $0 != "=" } })
            #expect(context.state.count == keys.count, "\(keptState.debugDescription)")
        }
        #expect(kept > 1_000 && dropped > 1_000, "kept \(kept), dropped \(dropped)")
    }
}
