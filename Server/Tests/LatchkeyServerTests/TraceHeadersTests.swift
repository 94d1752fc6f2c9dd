import HTTPTypes
import LatchkeyHTTP
import Testing

/// The W3C Trace Context headers the request's span reads (`TraceHeaders`): a well-formed pair
/// is kept, a malformed `traceparent` drops both, a malformed `tracestate` is dropped alone.
@Suite struct TraceHeadersTests {
    static let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test(arguments: [
        "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",
        "00-4bf92f3577b34da6a3ce929d0e0e473é-00f067aa0ba902b7-01",
    ])
    func aMalformedTraceparentIsDropped(traceparent: String) {
        #expect(TraceHeaders(traceparent: traceparent, tracestate: "vendor=value") == nil)
    }

    @Test(arguments: [
        "vendor=value", "a=1,b=2", "a=1, b=2,   c=3", "tenant@system=v", "0tenant@sys-tem=v", "k_-*/9=a b",
        String(repeating: "k", count: 256) + "=" + String(repeating: "v", count: 256),
        (1...32).map { "k\($0)=v" }.joined(separator: ","),
    ])
    func aWellFormedPairIsKept(tracestate: String) throws {
        let headers = try #require(TraceHeaders(traceparent: Self.parent, tracestate: tracestate))
        #expect(headers.parent == Self.parent)
        #expect(headers.state == tracestate)
    }

    @Test(arguments: [
        "=bad", "vendor=", "Vendor=v", "1vendor=v", "vendor", "a=1,,b=2", ",a=1", "a=1,", " a=1", "a=1 ",
        "a=b=c", "a=\u{7F}", "a=caf\u{E9}", "t@=v", "@s=v", "t@s@x=v", "t@0sys=v", "t@systemistoolong=v",
        String(repeating: "k", count: 257) + "=v", "k=" + String(repeating: "v", count: 257),
        (1...33).map { "k\($0)=v" }.joined(separator: ","),
    ])
    func aMalformedTracestateIsDroppedAlone(tracestate: String) throws {
        let headers = try #require(TraceHeaders(traceparent: Self.parent, tracestate: tracestate))
        #expect(headers.parent == Self.parent)
        #expect(headers.state == nil)
    }

    /// `tracestate` sent on several lines is one list (RFC 9110's field combination); the other
    /// headers of a request are not part of the pair.
    @Test func theHeadersAreReadFromARequest() throws {
        var fields: HTTPFields = [.authorization: "Bearer credential"]
        #expect(TraceHeaders(fields) == nil)
        fields[HTTPField.Name("traceparent")!] = Self.parent
        fields.append(HTTPField(name: HTTPField.Name("tracestate")!, value: "a=1"))
        fields.append(HTTPField(name: HTTPField.Name("tracestate")!, value: "b=2"))
        let headers = try #require(TraceHeaders(fields))
        #expect(headers == TraceHeaders(traceparent: Self.parent, tracestate: "a=1,b=2"))
        let extractor = TraceHeadersExtractor()
        #expect(extractor.extract(key: "traceparent", from: headers) == Self.parent)
        #expect(extractor.extract(key: "tracestate", from: headers) == "a=1,b=2")
        #expect(extractor.extract(key: "authorization", from: headers) == nil)
    }
}
