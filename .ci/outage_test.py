"""CI: a PostgreSQL outage under light load, against `latchkey serve` on a PostgreSQL cluster of its
own. While the database is down, calls that need it answer 503 with Retry-After within about a
second, /ready answers 503, /health 200; service resumes within 2 s of the database returning;
SIGTERM while the database is down ends the server within its grace period (10 s).

Usage: outage_test.py BINARY PGBIN WORKDIR PORT PGPORT
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from steps import check, serve

BINARY, PGBIN, WORK, PORT, PGPORT = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
BASE = f"http://127.0.0.1:{PORT}"
APP = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": "outage-device",
       "Content-Type": "application/json"}
PGDATA = os.path.join(WORK, "pg")


def pg(action):
    options = f"-p {PGPORT} -k /tmp -c listen_addresses=127.0.0.1"
    command = {"start": f"{PGBIN}/pg_ctl -D {PGDATA} -o '{options}' -l {PGDATA}/log -w start",
               "stop": f"{PGBIN}/pg_ctl -D {PGDATA} -m immediate -w stop"}[action]
    subprocess.run(["su", "postgres", "-c", command], check=True, capture_output=True)


def call(method, path, body=None, timeout=10):
    """(status, headers, seconds) of one call."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=APP)
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read()
            return response.status, dict(response.headers), time.monotonic() - start
    except urllib.error.HTTPError as error:
        error.read()
        return error.code, dict(error.headers), time.monotonic() - start


counter = [0]


def register():
    counter[0] += 1
    profile = {"firstName": "Out", "lastName": "Age", "email": f"outage-{counter[0]}-{time.time_ns()}@example.com",
               "password": "outage-pass-1", "confirmPassword": "outage-pass-1", "passcode": "314159",
               "confirmPasscode": "314159",
               "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                              "What is your mother's maiden name?": "Byron"}}
    return call("POST", "/v1/enrollment/users", {"userProfile": profile})


os.makedirs(PGDATA, exist_ok=True)
subprocess.run(["chown", "postgres", PGDATA], check=True)
subprocess.run(["su", "postgres", "-c", f"{PGBIN}/initdb -D {PGDATA} -U postgres -A trust"], check=True, capture_output=True)
pg("start")
DATABASE = f"postgres://postgres@127.0.0.1:{PGPORT}/postgres?sslmode=disable"
config = os.path.join(WORK, "outage.yaml")
with open(config, "w") as file:
    json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "rateLimits": {"enabled": False},
               "secrets": {"pepperFile": f"{WORK}/pepper", "caKeyFile": f"{WORK}/ca-key.pem", "caCertificateFile": f"{WORK}/ca.pem", "sealKeyFile": f"{WORK}/seal-key.pem"},
               "courier": {"channel": "file", "path": f"{WORK}/outbox.jsonl"},
               "issuer": {"deviceBinding": "optional"}}, file)
subprocess.run([BINARY, "secrets", "generate", "--database", DATABASE, "--config", config], check=True, capture_output=True)
server = serve(BINARY, PORT, DATABASE, config)
try:
    check(register()[0] == 201, "a registration on PostgreSQL")

    # Light load beside the checks: a registration every 100 ms.
    load = {"stop": False, "statuses": []}

    def background():
        while not load["stop"]:
            try:
                load["statuses"].append(register()[0])
            except OSError as error:
                # No answer at all: recorded with its reason, which the failure message then names.
                load["statuses"].append(0)
                load.setdefault("errors", []).append(f"{type(error).__name__}: {error}")
            time.sleep(0.1)
    worker = threading.Thread(target=background)
    worker.start()
    time.sleep(1)

    pg("stop")
    status, headers, seconds = register()
    check(status == 503 and int(headers.get("Retry-After", "0")) >= 1 and seconds < 2.5,
          f"database down: a registration answers 503 with Retry-After in {seconds:.2f} s")
    status, headers, seconds = call("POST", "/v1/auth/login/password", {"username": "nobody@example.com", "password": "x"})
    check(status == 503 and seconds < 2.5, f"database down: a login answers 503 in {seconds:.2f} s")
    status, _, seconds = call("GET", "/ready")
    check(status == 503 and seconds < 1.5, f"database down: /ready answers 503 in {seconds:.2f} s")
    status, _, seconds = call("GET", "/health")
    check(status == 200 and seconds < 0.5, "database down: /health stays 200")

    pg("start")
    back = time.monotonic()
    resumed = None
    while time.monotonic() - back < 5:
        if register()[0] == 201:
            resumed = time.monotonic() - back
            break
        time.sleep(0.1)
    check(resumed is not None and resumed <= 2, f"service resumes {resumed if resumed is None else round(resumed, 2)} s after the database returns")
    check(call("GET", "/ready")[0] == 200, "/ready answers 200 again")
    load["stop"] = True
    worker.join()
    check(set(load["statuses"]) <= {201, 503}, f"under load, every answer was 201 or 503: {sorted(set(load['statuses']))} {load.get('errors', [])}")

    pg("stop")
    register()
    start = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=15)
        stopped = time.monotonic() - start
    except subprocess.TimeoutExpired:
        stopped = None
    check(stopped is not None and stopped <= 12, f"SIGTERM with the database down ends the server in {stopped} s")
finally:
    if server.poll() is None:
        server.kill()
    try:
        pg("stop")
    except subprocess.CalledProcessError:
        pass
print(f"outage: {__import__('steps').passed} steps passed")
