#!/usr/bin/env python3
"""CI: traces of `latchkey serve` (built with the OTLPExport trait) received over OTLP/HTTP by
otlp_receiver.py, as a collector would receive them.

    python3 .ci/tracing_test.py BINARY WORKDIR PORT OTLP_PORT DATABASE

The server runs with `telemetry.tracing` on at 100 % sampling. A registration, its email
confirmed, and logins with the nonce and the password (one wrong, one right) are sent as a load
balancer would, each request with a W3C `traceparent` of one trace. Checked: the spans arrive at
the receiver with the configured `service.name`; each request is a server span of that trace whose
parent is the caller's span (the header is honoured), named by the contract's operation id; the
password login has the hash gate's wait, the hash and its database transaction as children; no
span's name, attribute or event holds the email, the password, the PIN, an answer, the nonce, a
session token, the link's token or the page's CSRF value; the server's log line of the login
carries the trace's id. The collector's key, given as OpenTelemetry's
`OTEL_EXPORTER_OTLP_TRACES_HEADERS` (as a vendor's API key is), reaches the receiver on every
export and appears nowhere in the server's log, at the `info` level the exporter logs its
configuration at, while the log still says which variable changed the setting. A session read
with a malformed `traceparent` and `tracestate` beside its bearer token and a cookie answers as
usual, and the log holds none of those headers, nor any other secret of the run (OpenTelemetry's
propagator logs what it cannot read).
"""
import html
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from otlp_receiver import Receiver  # noqa: E402
from steps import DATABASE_TIMEOUT_MILLISECONDS, check  # noqa: E402

BINARY, WORK, PORT, OTLP_PORT, DATABASE = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
BASE = f"http://127.0.0.1:{PORT}"
OUTBOX = os.path.join(WORK, "outbox.jsonl")
EMAIL, PASSWORD, PIN = "traced.person@example.com", "traced-horse-42", "271828"
ANSWERS = {"What was the name of your first pet?": "Rexford", "In what city were you born?": "Lisbon",
           "What is your mother's maiden name?": "Murray"}
TRACE_ID, PARENT_ID = secrets.token_hex(16), secrets.token_hex(8)
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
COLLECTOR_KEY = secrets.token_hex(16)
SECRETS = {EMAIL, "traced.person", PASSWORD, PIN, "wrong-horse-43", COLLECTOR_KEY, *ANSWERS.values()}


def call(method, path, body=None, extra=None):
    headers = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": "traced-device",
               "Content-Type": "application/json", "traceparent": TRACEPARENT, **(extra or {})}
    request = urllib.request.Request(BASE + path, data=json.dumps(body).encode() if body is not None else None, method=method,
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def confirm(link):
    """Opens the emailed link and presses its confirmation button, both with the traceparent."""
    parsed = urllib.parse.urlparse(link)
    request = urllib.request.Request(BASE + parsed.path + "?" + parsed.query, headers={"traceparent": TRACEPARENT})
    with urllib.request.urlopen(request, timeout=15) as response:
        page = response.read().decode()
        cookie = response.headers.get("Set-Cookie", "").split(";")[0]
    fields = {name: html.unescape(re.search(f'name="{name}" value="([^"]*)"', page).group(1)) for name in ("token", "csrf")}
    SECRETS.update(fields.values())
    action = re.search(r'<form [^>]*action="([^"]*)"', page).group(1)
    request = urllib.request.Request(BASE + action, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie,
                                              "traceparent": TRACEPARENT})
    with urllib.request.urlopen(request, timeout=15) as response:
        return response.status == 200 and "Email verified" in response.read().decode()


def verification_link():
    for _ in range(100):
        if os.path.exists(OUTBOX):
            for line in open(OUTBOX):
                message = json.loads(line)
                if message["to"] == EMAIL and message["template"] == "email_verification":
                    return message["data"]["link"]
        time.sleep(0.1)
    check(False, "the verification email is written")


config = os.path.join(WORK, "config.json")
with open(config, "w") as file:
    json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "rateLimits": {"enabled": False}, "databaseTimeoutMilliseconds": DATABASE_TIMEOUT_MILLISECONDS,
               "secrets": {"pepperFile": f"{WORK}/pepper", "caKeyFile": f"{WORK}/ca-key.pem", "caCertificateFile": f"{WORK}/ca.pem",
                           "sealKeyFile": f"{WORK}/seal-key.pem"},
               "courier": {"channel": "file", "path": OUTBOX, "pollIntervalMilliseconds": 50},
               "issuer": {"deviceBinding": "optional"},
               "telemetry": {"tracing": {"enabled": True, "endpoint": f"http://127.0.0.1:{OTLP_PORT}/v1/traces",
                                         "samplingRatio": 1.0, "serviceName": "latchkey-ci"}}}, file)

receiver = Receiver(OTLP_PORT).start()
subprocess.run([BINARY, "secrets", "generate", "--database", DATABASE, "--config", config], check=True, capture_output=True)
log_path = os.path.join(WORK, "server.log")
log = open(log_path, "w")
server = subprocess.Popen([BINARY, "serve", "--port", str(PORT), "--database", DATABASE, "--config", config],
                          env={**os.environ, "LOG_LEVEL": "info", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": f"x-collector-key={COLLECTOR_KEY}"},
                          stdout=log, stderr=subprocess.STDOUT)
try:
    for _ in range(100):
        try:
            with urllib.request.urlopen(BASE + "/ready", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
    profile = {"firstName": "Tracy", "lastName": "Spanner", "email": EMAIL, "password": PASSWORD, "confirmPassword": PASSWORD,
               "passcode": PIN, "confirmPasscode": PIN, "mfaAnswers": ANSWERS}
    status, registered = call("POST", "/v1/enrollment/users", {"userProfile": profile})
    check(status == 201, f"registration with a traceparent answers 201 ({status})")
    SECRETS.add(registered["nonce"])
    link = verification_link()
    SECRETS.add(urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["token"][0])
    check(confirm(link), "the emailed link confirms the address")
    status, nonce_login = call("POST", "/v1/auth/login/nonce", {"nonce": registered["nonce"]})
    check(status == 200, "the nonce login answers 200")
    SECRETS.add(nonce_login["sessionToken"])
    status, _ = call("POST", "/v1/auth/login/password", {"username": EMAIL, "password": "wrong-horse-43"})
    check(status == 401, "a wrong password answers 401")
    status, login = call("POST", "/v1/auth/login/password", {"username": EMAIL, "password": PASSWORD})
    check(status == 200, "the password login answers 200")
    SECRETS.add(login["sessionToken"])

    # A malformed traceparent beside the request's credentials: OpenTelemetry's propagator logs
    # a carrier it cannot read, and the carrier is the request's headers, every one of them.
    COOKIE = secrets.token_hex(16)
    SECRETS.add(COOKIE)
    status, _ = call("GET", "/v1/auth/session", extra={"Authorization": f"Bearer {login['sessionToken']}",
                                                       "Cookie": f"latchkey_console={COOKIE}",
                                                       "traceparent": f"00-{TRACE_ID}-not-a-span-{COOKIE}",
                                                       "tracestate": f"vendor={COOKIE},=bad"})
    check(status == 200, f"a session read with a malformed traceparent answers 200 ({status})")
    # An upper-case key is outside the grammar OpenTelemetry's propagator reads: it would throw.
    status, _ = call("GET", "/v1/auth/session", extra={"Authorization": f"Bearer {login['sessionToken']}",
                                                       "tracestate": f"vendor={COOKIE},Vendor=bad"})
    check(status == 200, f"a session read with a well-formed traceparent and a malformed tracestate answers 200 ({status})")

    def ours():
        return [span for span in receiver.spans if span["traceId"] == TRACE_ID]

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sum(span["name"] == "loginByUsernamePassword" for span in ours()) < 2:
        time.sleep(0.5)
    spans = ours()
    check(receiver.requests > 0 and spans, f"the server exported spans over OTLP/HTTP ({receiver.requests} exports, "
                                            f"{len(receiver.spans)} spans, {len(spans)} of the trace)")
    check(all(span["resource"].get("service.name") == "latchkey-ci" for span in receiver.spans),
          "every span carries service.name latchkey-ci")
    requests = [span for span in spans if span["kind"] == "SPAN_KIND_SERVER"]
    names = sorted(span["name"] for span in requests)
    print("   request spans:", ", ".join(names))
    for operation in ("registerNewUser", "loginByNonce", "loginByUsernamePassword"):
        check(operation in names, f"a server span named {operation}")
    check(all(span["parentSpanId"] == PARENT_ID for span in requests),
          "every request span is a child of the caller's span (traceparent honoured)")
    logins = [span for span in requests if span["name"] == "loginByUsernamePassword"]
    check(sorted(span["attributes"].get("http.response.status_code") for span in logins) == ["200", "401"],
          "the two password logins' spans carry their status codes 200 and 401")
    login_span = next(span for span in logins if span["attributes"].get("http.response.status_code") == "200")
    children = [span for span in spans if span["parentSpanId"] == login_span["spanId"]]
    child_names = {span["name"] for span in children}
    print("   the login's children:", ", ".join(sorted(child_names)))
    check({"hash.wait", "hash", "db.transaction"} <= child_names,
          "the login's children: the hash gate's wait, the hash and a database transaction")
    engine = "postgresql" if DATABASE.startswith("postgres") else "sqlite"
    check(all(span["attributes"].get("db.system") == engine for span in children if span["name"].startswith("db.")),
          f"the database spans name the engine ({engine})")
    leaks = []
    for span in receiver.spans:
        texts = [span["name"], span["statusMessage"]] + [f"{key}={value}" for key, value in span["attributes"].items()]
        texts += [json.dumps(event) for event in span["events"]]
        leaks += [f"{span['name']}: {text}" for text in texts for secret in SECRETS if secret.lower() in text.lower()]
    check(not leaks, f"no span holds a secret ({len(receiver.spans)} spans, {len(SECRETS)} secrets): {leaks[:3]}")
    log.flush()
    lines = [line for line in open(log_path) if "/v1/auth/login/password 200" in line]
    check(lines and all(f"trace_id={TRACE_ID}" in line for line in lines),
          f"the login's log line carries trace_id: {lines[:1]}")
    check(receiver.headers and all(headers.get("x-collector-key") == COLLECTOR_KEY for headers in receiver.headers),
          f"every export carries the collector's key from OTEL_EXPORTER_OTLP_TRACES_HEADERS ({len(receiver.headers)} exports)")
    told = [line.strip() for line in open(log_path) if COLLECTOR_KEY in line]
    check(not told, f"the server's log holds no collector key: {told[:1]}")
    told = [line.strip() for line in open(log_path) if "OTEL_EXPORTER_OTLP_TRACES_HEADERS" in line]
    check(told and all("[redacted]" in line for line in told),
          f"the log says the headers were set from OTEL_EXPORTER_OTLP_TRACES_HEADERS, their value redacted: {told[:1]}")
    told = [line.strip() for line in open(log_path) for secret in SECRETS if secret.lower() in line.lower()]
    check(not told, f"the server's log holds no credential, token or header the client sent: {told[:1]}")
finally:
    server.terminate()
    server.wait(timeout=20)
    receiver.stop()
print("tracing: every check passed")
