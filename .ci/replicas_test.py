"""CI: two `latchkey serve` on one PostgreSQL, both couriers running. Lockout is exact under
parallel wrong passwords split across them; a rate limit holds for the pair; a logout on one is
refused on the other within the documented second; every outbox message is delivered once per id.
The admin API on each server's own listener: a wallet locked on one is unlocked through the
other; a key revoked by the CLI is refused at once by both; the public ports do not answer it.
With PGBOUNCER (the libpq connection string of PgBouncer's admin console), DATABASE goes through
that PgBouncer: at the end its pool is checked to be in transaction mode and to have served the two
servers' connections with fewer server connections than they opened, and the run's times are printed.

Usage: replicas_test.py BINARY WORKDIR PORT_A PORT_B DATABASE [PGBOUNCER]
"""
import base64
import concurrent.futures
import hashlib
import html
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from steps import DATABASE_TIMEOUT_MILLISECONDS, check, serve

BINARY, WORK, PORT_A, PORT_B, DATABASE = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
PGBOUNCER = sys.argv[6] if len(sys.argv) > 6 else None
STARTED = time.monotonic()
LATENCIES = []  # seconds per request answered, for the summary line
SERVERS = [f"http://127.0.0.1:{PORT_A}", f"http://127.0.0.1:{PORT_B}"]
OUTBOXES = [os.path.join(WORK, "outbox-a.jsonl"), os.path.join(WORK, "outbox-b.jsonl")]


ADMIN_PORTS = [PORT_A + 1000, PORT_B + 1000]


def configure(outbox, admin_port=None):
    path = outbox.replace(".jsonl", ".yaml")
    with open(path, "w") as file:
        # The servers sit behind "a proxy" (this script): each step names its client address, so
        # the rate-limit step has a budget of its own.
        json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "databaseTimeoutMilliseconds": DATABASE_TIMEOUT_MILLISECONDS,
                   "rateLimits": {"enabled": True, "requestsPerMinutePerIP": 20, "credentialAttemptsPerMinutePerAccount": 1000},
                   "http": {"trustedProxies": ["127.0.0.1/32"]},
                   "secrets": {"pepperFile": f"{WORK}/pepper", "caKeyFile": f"{WORK}/ca-key.pem", "caCertificateFile": f"{WORK}/ca.pem", "sealKeyFile": f"{WORK}/seal-key.pem"},
                   "courier": {"channel": "file", "path": outbox, "pollIntervalMilliseconds": 50},
                   "issuer": {"deviceBinding": "optional"},
                   "admin": {"enabled": admin_port is not None, "port": admin_port or 8081}}, file)
    return path


def call(server, method, path, body=None, session=None, device="device-1", client=None):
    headers = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": device,
               "Content-Type": "application/json",
               "X-Forwarded-For": client or f"198.51.100.{random.randint(1, 254)}, 10.{random.randint(0, 255)}.{random.randint(0, 255)}.1"}
    if session:
        headers["Authorization"] = "Bearer " + session
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server + path, data=data, method=method, headers=headers)
    began = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")
    finally:
        LATENCIES.append(time.monotonic() - began)


def pgbouncer(command):
    """The rows of an admin console command (SHOW …) of the PgBouncer in front of DATABASE, by column."""
    lines = subprocess.run(["psql", PGBOUNCER, "-AF", "|", "-c", command], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    header = lines[0].split("|")
    return [dict(zip(header, line.split("|"))) for line in lines[1:] if "|" in line]


def delivered():
    messages = []
    for path in OUTBOXES:
        if os.path.exists(path):
            with open(path) as lines:
                messages += [json.loads(line) for line in lines if line.strip()]
    return messages


def link(email, template="email_verification"):
    for _ in range(100):
        for message in delivered():
            if message["to"] == email and message["template"] == template:
                return message["data"]["link"]
        time.sleep(0.1)
    raise SystemExit(f"FAILED: no {template} for {email}")


def confirm(link, opened_on, posted_to):
    """Opens an emailed link on one server and presses its confirmation page's button on the other
    (opening alone changes nothing): the page's CSRF field holds on every server of the cluster."""
    parsed = urllib.parse.urlparse(link)
    with urllib.request.urlopen(opened_on + parsed.path + "?" + parsed.query, timeout=15) as response:
        page = response.read().decode()
        cookie = response.headers.get("Set-Cookie", "").split(";")[0]
    assert cookie.startswith("latchkey_csrf="), response.headers
    action = re.search(r'<form [^>]*action="([^"]*)"', page).group(1)
    fields = {name: html.unescape(re.search(f'name="{name}" value="([^"]*)"', page).group(1)) for name in ("token", "csrf")}
    request = urllib.request.Request(posted_to + action, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
    with urllib.request.urlopen(request, timeout=15) as response:
        assert response.status == 200 and "Email verified" in response.read().decode(), response.status


def enrol(email, server):
    profile = {"firstName": "Rep", "lastName": "Lica", "email": email, "password": "replica-pass-1",
               "confirmPassword": "replica-pass-1", "passcode": "314159", "confirmPasscode": "314159",
               "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                              "What is your mother's maiden name?": "Byron"}}
    status, registered = call(server, "POST", "/v1/enrollment/users", {"userProfile": profile})
    assert status == 201, registered
    confirm(link(email), server, SERVERS[1] if server == SERVERS[0] else SERVERS[0])
    status, login = call(server, "POST", "/v1/auth/login/nonce", {"nonce": registered["nonce"]})
    assert status == 200, login
    return login["sessionToken"]


generated = subprocess.run([BINARY, "secrets", "generate", "--database", DATABASE, "--config", configure(OUTBOXES[0])],
                           check=True, capture_output=True, text=True).stdout
printed_pin = re.search(r"pin \(LatchkeyContext.sealKeyPins\) (\S+)", generated)
servers = []
try:
    servers = [serve(BINARY, port, DATABASE, configure(outbox, admin)) for port, outbox, admin in zip([PORT_A, PORT_B], OUTBOXES, ADMIN_PORTS)]
    check(len(servers) == 2, "two servers on one PostgreSQL database")

    published = [[key for key in call(server, "GET", "/v1/enrollment/encryption-settings")[1]["keys"] if key["current"]]
                 for server in SERVERS]
    pins = {base64.b64encode(hashlib.sha256(base64.b64decode(keys[0]["publicKey"])).digest()).decode() for keys in published}
    check(printed_pin is not None and pins == {printed_pin.group(1)},
          "both servers publish one seal key, the one whose pin `secrets generate` printed")

    session = enrol("replica-ada@example.com", SERVERS[0])
    check(call(SERVERS[1], "GET", "/v1/auth/session", session=session)[0] == 200, "a session from one server works on the other")
    check(call(SERVERS[0], "POST", "/v1/auth/logout", session=session)[0] < 300, "logout on the first")
    time.sleep(1.1)
    check(call(SERVERS[1], "GET", "/v1/auth/session", session=session)[0] == 401,
          "the logged-out session is refused on the second within the documented second")

    enrol("replica-bob@example.com", SERVERS[1])
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        codes = list(pool.map(lambda index: call(SERVERS[index % 2], "POST", "/v1/auth/login/password",
                                                 {"username": "replica-bob@example.com", "password": f"wrong-{index}"})[0],
                              range(16)))
    # HTTP statuses: 401 wrong password, 423 wallet deactivated (code 421), 429 attempts in flight.
    check(codes.count(401) <= 4 and set(codes) <= {401, 423, 429},
          f"16 parallel wrong passwords split across both: at most the threshold checked ({sorted(codes)})")
    check(all(call(server, "POST", "/v1/auth/login/password",
                   {"username": "replica-bob@example.com", "password": "replica-pass-1"})[0] == 423 for server in SERVERS),
          "the wallet is locked (421, HTTP 423) on both servers, even for the right password")

    # The admin API (issue 25), each server on its own loopback listener.
    def admin(index, method, path, key):
        request = urllib.request.Request(f"http://127.0.0.1:{ADMIN_PORTS[index]}{path}", method=method,
                                         headers={"Authorization": "Bearer " + key})
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def key(role):
        return subprocess.run([BINARY, "operators", "keys", "create", "--name", f"ci-{role}", "--role", role, "--database", DATABASE,
                               "--config", configure(OUTBOXES[0])], check=True, capture_output=True, text=True,
                              env={**os.environ, "LOG_LEVEL": "error"}).stdout.strip()
    support, viewer = key("support"), key("viewer")
    status, found = admin(0, "GET", "/admin/v1/users?email=replica-bob@example.com", support)
    bob = found["users"][0]["id"] if status == 200 and found.get("users") else ""
    check(status == 200 and found["users"][0]["status"] == "deactivated", "the admin API of the first finds the locked wallet")
    status, detail = admin(1, "GET", f"/admin/v1/users/{bob}", viewer)
    check(status == 200 and [block["reason"] for block in detail["loginBlocks"]] == ["wallet_deactivated"],
          f"the second's says why: {detail.get('loginBlocks')}")
    check(admin(1, "POST", f"/admin/v1/users/{bob}/unlock", viewer)[0] == 403, "a viewer key cannot unlock")
    check(call(SERVERS[0], "GET", "/admin/v1/users", client="203.0.113.9")[0] == 404, "the public port does not answer the admin API")
    check(admin(1, "POST", f"/admin/v1/users/{bob}/unlock", support)[0] == 204, "a support key unlocks on the second")
    status, login = call(SERVERS[0], "POST", "/v1/auth/login/password", {"username": "replica-bob@example.com", "password": "replica-pass-1"})
    check(status == 200, "the wallet logs in on the first")
    token = login.get("sessionToken", "")
    check(call(SERVERS[1], "GET", "/v1/auth/session", session=token)[0] == 200, "its session works on the second")
    status, detail = admin(0, "GET", f"/admin/v1/users/{bob}", support)
    session_ids = [session["id"] for session in detail.get("sessions", [])]
    check(status == 200 and len(session_ids) == 1, f"the detail lists the live session: {session_ids}")
    check(admin(0, "DELETE", f"/admin/v1/users/{bob}/sessions/{session_ids[0] if session_ids else 'x'}", support)[0] == 204,
          "a support key ends that one session on the first")
    time.sleep(1.1)  # the documented second a replica may keep a session it read in its cache
    check(call(SERVERS[1], "GET", "/v1/auth/session", session=token)[0] == 401,
          "the ended session is refused by the second within the documented second")
    # A stolen phone: every session of the wallet ended on the second, refused by the first.
    tokens = []
    for _ in range(2):
        status, login = call(SERVERS[1], "POST", "/v1/auth/login/password", {"username": "replica-bob@example.com", "password": "replica-pass-1"})
        tokens.append(login.get("sessionToken", ""))
    check(all(call(SERVERS[0], "GET", "/v1/auth/session", session=t)[0] == 200 for t in tokens), "two new sessions work on the first")
    check(admin(1, "DELETE", f"/admin/v1/users/{bob}/sessions", support)[0] == 204, "a support key ends every session on the second")
    time.sleep(1.1)
    check(all(call(SERVERS[0], "GET", "/v1/auth/session", session=t)[0] == 401 for t in tokens),
          "every ended session is refused by the first within the documented second")
    key_id = support.split("_")[1]
    subprocess.run([BINARY, "operators", "keys", "revoke", key_id, "--database", DATABASE, "--config", configure(OUTBOXES[0])],
                   check=True, capture_output=True, env={**os.environ, "LOG_LEVEL": "error"})
    check(all(admin(index, "GET", f"/admin/v1/users/{bob}", support)[0] == 401 for index in range(2)),
          "a key revoked by the CLI is refused at once by both servers")

    statuses = [call(SERVERS[index % 2], "GET", "/v1/enrollment/mfa-questions", client="203.0.113.7")[0] for index in range(60)]
    check(statuses.count(200) == 20 and statuses.count(429) == 40,
          f"a limit of 20 a minute per IP holds for the pair: {statuses.count(200)} of 60 passed")

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        sent = list(pool.map(lambda index: call(SERVERS[index % 2], "POST", "/v1/enrollment/users", {"userProfile": {
            "firstName": "Out", "lastName": "Box", "email": f"replica-mail-{index}@example.com", "password": "replica-pass-1",
            "confirmPassword": "replica-pass-1", "passcode": "314159", "confirmPasscode": "314159",
            "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                           "What is your mother's maiden name?": "Byron"}}})[0], range(30)))
    check(sent.count(201) == 30, "30 registrations across both servers")
    expected = {f"replica-mail-{index}@example.com" for index in range(30)}
    deadline = time.time() + 20
    while time.time() < deadline and not expected <= {message["to"] for message in delivered()}:
        time.sleep(0.2)
    time.sleep(1)
    messages = delivered()
    ids = [message["id"] for message in messages]
    check(expected <= {message["to"] for message in messages}, "every verification email delivered")
    check(len(ids) == len(set(ids)), f"each message delivered once by the two couriers ({len(ids)} deliveries, {len(set(ids))} ids)")
    check(all(os.path.exists(path) and os.path.getsize(path) > 0 for path in OUTBOXES), "both couriers delivered some")

    if PGBOUNCER:
        name = urllib.parse.urlparse(DATABASE).path.lstrip("/")
        pool = [row for row in pgbouncer("SHOW DATABASES") if row["name"] == name]
        modes = [row["pool_mode"] for row in pgbouncer("SHOW POOLS") if row["database"] == name]
        check(len(pool) == 1 and modes == ["transaction"], f"PgBouncer pools {name} in transaction mode ({modes})")
        clients = [row for row in pgbouncer("SHOW CLIENTS") if row["database"] == name]
        servers_used = [row for row in pgbouncer("SHOW SERVERS") if row["database"] == name]
        statistics = [row for row in pgbouncer("SHOW STATS") if row["database"] == name]
        transactions = int(statistics[0]["total_xact_count"]) if statistics else 0
        check(transactions > 0 and len(servers_used) <= int(pool[0]["pool_size"]) < len(clients),
              f"the servers' {len(clients)} connections shared {len(servers_used)} server connections "
              f"(pool_size {pool[0]['pool_size']}) for {transactions} transactions")
finally:
    for server in servers:
        server.terminate()
        server.wait()
LATENCIES.sort()
print(f"replicas: {__import__('steps').passed} steps passed in {time.monotonic() - STARTED:.1f} s; "
      f"{len(LATENCIES)} requests, median {1000 * LATENCIES[len(LATENCIES) // 2]:.1f} ms, "
      f"p99 {1000 * LATENCIES[int(len(LATENCIES) * 0.99)]:.1f} ms" + (" (through PgBouncer)" if PGBOUNCER else ""))
