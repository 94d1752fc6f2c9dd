#!/usr/bin/env python3
"""A small OTLP/HTTP trace receiver: what a collector's `otlp` receiver does with traces, on
OpenTelemetry's own protobuf definitions (the `opentelemetry-proto` package).

    python3 .ci/otlp_receiver.py PORT OUT.jsonl      # runs until killed

It accepts `POST /v1/traces` with an `ExportTraceServiceRequest` (binary protobuf, optionally
gzip-compressed), answers an empty `ExportTraceServiceResponse`, and writes one JSON line per span:
its trace and span ids, the parent's span id, name, kind, status code, every attribute (as text),
every event (name and attributes), and the resource's attributes (`service.name`). Anything else
is refused 404/415. Imported by tracing_test.py and run by the tracing benchmark as a collector.
"""
import gzip
import http.server
import json
import signal
import sys
import threading

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


def value_text(value):
    """An AnyValue as text: the one member it holds."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return "[" + ", ".join(value_text(item) for item in value.array_value.values) + "]"
    if kind == "kvlist_value":
        return "{" + ", ".join(f"{item.key}={value_text(item.value)}" for item in value.kvlist_value.values) + "}"
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return str(getattr(value, kind)) if kind else ""


def attributes(pairs):
    return {pair.key: value_text(pair.value) for pair in pairs}


def spans_of(request):
    """The spans of an ExportTraceServiceRequest as dictionaries."""
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {"traceId": span.trace_id.hex(), "spanId": span.span_id.hex(),
                       "parentSpanId": span.parent_span_id.hex() or None, "name": span.name,
                       "kind": trace_pb2.Span.SpanKind.Name(span.kind), "status": trace_pb2.Status.StatusCode.Name(span.status.code),
                       "statusMessage": span.status.message, "attributes": attributes(span.attributes),
                       "events": [{"name": event.name, "attributes": attributes(event.attributes)} for event in span.events],
                       "resource": resource}


class Receiver:
    """Listens on 127.0.0.1:PORT in a thread; `spans` holds every span received (with `keep`),
    `count` counts them, `headers` holds each export request's headers, `out` (a path) also gets
    the spans as JSON lines."""

    def __init__(self, port, out=None, keep=True):
        self.spans, self.count, self.requests, self.out, self.keep, self.lock = [], 0, 0, out, keep, threading.Lock()
        self.headers = []  # each export request's headers, names in lower case
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-protobuf":
                    self.send_error(415, "OTLP/HTTP binary protobuf only")
                    return
                with receiver.lock:
                    receiver.headers.append({name.lower(): value for name, value in self.headers.items()})
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.add(list(spans_of(request)))
                answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def add(self, spans):
        with self.lock:
            self.requests += 1
            self.count += len(spans)
            if self.keep:
                self.spans += spans
            if self.out:
                with open(self.out, "a") as file:
                    for span in spans:
                        file.write(json.dumps(span) + "\n")

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()


if __name__ == "__main__":
    port, out = int(sys.argv[1]), (sys.argv[2] if len(sys.argv) > 2 else None)
    # A background job of a script ignores SIGINT: SIGTERM ends it the same way, with the count.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    receiver = Receiver(port, out, keep=False).start()
    print(f"OTLP/HTTP receiver on 127.0.0.1:{port}/v1/traces", flush=True)
    try:
        receiver.thread.join()
    except KeyboardInterrupt:
        print(f"received {receiver.count} spans in {receiver.requests} exports", flush=True)
