import Foundation
import LatchkeyDomain
import Synchronization
import Tracing

/// The tests' tracer: the process's tracer (`InstrumentationSystem` takes one per process, and
/// suites run in parallel), set once by `TraceRecorder.shared`. It reads and writes W3C
/// `traceparent` headers as OpenTelemetry's propagator does and keeps only the spans of traces a
/// test watches: a test sends its own `traceparent` and reads the spans of its trace id, so
/// parallel tests see only their own spans and every other span is dropped at its start.
final class TraceRecorder: Tracer, Sendable {
    /// One ended span as an exporter would receive it.
    struct Recorded: Sendable {
        let name: String
        let kind: SpanKind
        let traceID: String
        let spanID: String
        let parentID: String?
        let attributes: [String: String]
        let events: [String]
        let status: SpanStatus?
    }

    struct SpanIDs: Sendable, Hashable {
        let traceID: String
        let spanID: String
    }

    private enum Key: ServiceContextKey { typealias Value = SpanIDs }

    private let watched = Mutex<[String: [Recorded]]>([:])
    /// For each watched trace, the headers the server's carrier let the propagator read.
    private let readable = Mutex<[String: Set<String>]>([:])
    /// How many server spans outside every watched trace ended, by name (they are not recorded).
    private let unwatchedServerSpans = Mutex<[String: Int]>([:])

    /// Headers a propagator could ask a request's carrier for: the two trace headers and the
    /// request's credentials.
    static let probedHeaders = ["traceparent", "tracestate", "authorization", "cookie", "dpop"]

    /// The tracer, set as the process's tracer and tracing activated the first time it is used.
    static let shared: TraceRecorder = {
        let recorder = TraceRecorder()
        InstrumentationSystem.bootstrap(recorder)
        Telemetry.activate()
        return recorder
    }()

    /// A new trace a test watches, as the `traceparent` value a load balancer would send, with
    /// the trace and span ids it names.
    func watchNewTrace() -> (header: String, traceID: String, parentID: String) {
        let traceID = Self.hex(16), parentID = Self.hex(8)
        watched.withLock { $0[traceID] = [] }
        return ("00-\(traceID)-\(parentID)-01", traceID, parentID)
    }

    /// The headers of `probedHeaders` the server's carrier answered for a request of a watched trace.
    func headersReadable(in traceID: String) -> Set<String>? { readable.withLock { $0[traceID] } }

    /// How many server spans named `name` ended outside every watched trace so far: a request
    /// that started a trace of its own.
    func serverSpansOutsideWatchedTraces(named name: String) -> Int { unwatchedServerSpans.withLock { $0[name] ?? 0 } }

    fileprivate func endedOutsideWatchedTraces(_ name: String) {
        unwatchedServerSpans.withLock { $0[name, default: 0] += 1 }
    }

    /// The ended spans of a watched trace.
    func spans(of traceID: String) -> [Recorded] { watched.withLock { $0[traceID] ?? [] } }

    func startSpan<Instant: TracerInstant>(_ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
                                           at instant: @autoclosure () -> Instant, function: String, file fileID: String,
                                           line: UInt) -> RecordingSpan {
        let parent = context()
        var ids: SpanIDs?
        if let parentIDs = parent[Key.self], watched.withLock({ $0[parentIDs.traceID] != nil }) {
            ids = SpanIDs(traceID: parentIDs.traceID, spanID: Self.hex(8))
        }
        var own = parent
        own[Key.self] = ids
        return RecordingSpan(name: operationName, kind: kind, ids: ids, parentID: ids == nil ? nil : parent[Key.self]?.spanID,
                             context: own, recorder: self)
    }

    fileprivate func ended(_ span: Recorded) {
        watched.withLock { traces in traces[span.traceID]?.append(span) }
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
        where Extract.Carrier == Carrier {
        let parts = extractor.extract(key: "traceparent", from: carrier)?.split(separator: "-") ?? []
        guard parts.count == 4, parts[1].count == 32, parts[2].count == 16 else { return }
        let traceID = String(parts[1])
        if watched.withLock({ $0[traceID] != nil }) {
            let answered = Self.probedHeaders.filter { extractor.extract(key: $0, from: carrier) != nil }
            readable.withLock { $0[traceID] = Set(answered) }
        }
        context[Key.self] = SpanIDs(traceID: traceID, spanID: String(parts[2]))
    }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
        where Inject.Carrier == Carrier {
        guard let ids = context[Key.self] else { return }
        injector.inject("00-\(ids.traceID)-\(ids.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    private static func hex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

/// A span of `TraceRecorder`; one outside a watched trace records nothing.
final class RecordingSpan: Span, Sendable {
    private struct State {
        var name: String
        var attributes = SpanAttributes()
        var events: [String] = []
        var status: SpanStatus?
        var ended = false
    }

    let context: ServiceContext
    private let kind: SpanKind
    private let ids: TraceRecorder.SpanIDs?
    private let parentID: String?
    private let recorder: TraceRecorder
    private let state: Mutex<State>

    fileprivate init(name: String, kind: SpanKind, ids: TraceRecorder.SpanIDs?, parentID: String?, context: ServiceContext,
                     recorder: TraceRecorder) {
        self.kind = kind
        self.ids = ids
        self.parentID = parentID
        self.context = context
        self.recorder = recorder
        state = Mutex(State(name: name))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    var isRecording: Bool { ids != nil }

    func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }

    /// An event's name and every attribute, as an exporter would send them.
    func addEvent(_ event: SpanEvent) {
        var text = event.name
        // SpanAttributes is not a sequence: its forEach is the way to read every attribute.
        let append: (String, SpanAttribute) -> Void = { key, value in text += " \(key)=\(value)" }
        event.attributes.forEach(append)
        state.withLock { $0.events.append(text) }
    }

    /// An error as OpenTelemetry's span records it: an `exception` event with its description.
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        state.withLock { $0.events.append("exception \(String(reflecting: error)) \(error)") }
    }

    func addLink(_ link: SpanLink) {}

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        guard let ids else {
            if kind == .server { recorder.endedOutsideWatchedTraces(state.withLock { $0.name }) }
            return
        }
        let finished: State? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        guard let finished else { return }
        var attributes: [String: String] = [:]
        let add: (String, SpanAttribute) -> Void = { key, value in attributes[key] = "\(value)" }
        finished.attributes.forEach(add)
        recorder.ended(TraceRecorder.Recorded(name: finished.name, kind: kind, traceID: ids.traceID, spanID: ids.spanID,
                                              parentID: parentID, attributes: attributes, events: finished.events,
                                              status: finished.status))
    }
}
