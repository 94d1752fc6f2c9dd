#!/usr/bin/env python3
"""A login storm and a registration run driven from outside the server (issue 24).

    python3 Scripts/bench/storm.py BASE [--setup-only]   (SERVER_PID: the server's, to report its CPU)

Against a separately started server (`Scripts/bench-wrk` starts one with the default hashing):

1. setup: 16 wallets, 10 device keys each linked by a password login and its MFA answer (160 keys);
2. capacity: 16 clients log in again and again for DURATION seconds (no overload): logins/s;
3. storm: 160 clients, each with a 10 s timeout, log in again and again, trying again 200 ms after
   each 503, as an impatient app or a credential-stuffing run does: successful logins/s (and their
   share of the capacity), admitted p50/p99, 503s, client timeouts;
4. registrations: 16 clients register new wallets (5 hashes each: password, PIN, 3 answers) for
   DURATION seconds: registrations/s against the hash budget (capacity logins/s / 5).

Every login carries a DPoP proof (RFC 9449) of its own, with the key's current `DPoP-Nonce`; a
`use_dpop_nonce` answer updates the nonce and the call is sent again at once with a proof signed
then. Each proof is signed just before its call; with PRESIGN=1 the proofs of the timed login
phases are signed just before each phase instead, as `Scripts/bench/proofs.py` signs wrk's (the
clients then try again sooner, so the storm sends more attempts). Each phase's line ends with the
CPU the driver and the server (SERVER_PID) used during it, in cores: the driver shares the
server's cores, and what it uses is taken from the hashing the storm measures. PHASES
(capacity,storm,registrations) picks the phases. Prints one line per phase; exits non-zero when a
phase could not run.
"""
import asyncio, collections, json, os, sys, time, uuid
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples"))
from dpop_login import DeviceKey  # noqa: E402

APP = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
ANSWERS = {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
           "What is your mother's maiden name?": "Byron"}
PASSWORD = "correct-horse-42"
DURATION = float(os.environ.get("DURATION", "20"))
PHASES = os.environ.get("PHASES", "capacity,storm,registrations").split(",")
PRESIGN = os.environ.get("PRESIGN", "0") == "1"


class Connection:
    """One keep-alive HTTP/1.1 connection (a client of the storm has its own)."""

    def __init__(self, base):
        parts = urlsplit(base)
        self.base, self.host, self.port = base, parts.hostname, parts.port or 80
        self.reader = self.writer = None

    async def call(self, method, path, body=None, headers=None, timeout=10.0):
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                data = json.dumps(body).encode() if body is not None else b""
                lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(data)}",
                         "Content-Type: application/json", f"X-Application-Signature: {APP}"]
                lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
                self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
                return await asyncio.wait_for(self._answer(), timeout)
            except asyncio.TimeoutError:
                self.close()
                raise
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise

    async def _answer(self):
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        return int(status_line.split()[1]), headers, (json.loads(body) if body else {})

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def proved(connection, key, method, path, body=None, token=None, timeout=10.0):
    """A call proved by `key`, sent again once when the server names a fresh nonce. A login takes
    the next of the key's proofs signed ahead (`presign`) while they carry its current nonce."""
    for _ in range(3):
        ready = getattr(key, "ready", None)
        headers = {"DPoP": ready.popleft() if ready and not token else key.proof(method, connection.base + path, token)}
        if token:
            headers["Authorization"] = "DPoP " + token
        status, answer_headers, answer = await connection.call(method, path, body, headers, timeout)
        key.nonce = answer_headers.get("dpop-nonce") or key.nonce
        if answer.get("error", {}).get("id") != "use_dpop_nonce":
            return status, answer_headers, answer
        if ready:
            ready.clear()  # signed with a nonce the server no longer takes
    return status, answer_headers, answer


def profile(email):
    return {"firstName": "Storm", "lastName": "Client", "email": email, "password": PASSWORD, "confirmPassword": PASSWORD,
            "passcode": "258013", "confirmPasscode": "258013", "mfaAnswers": ANSWERS}


async def setup(base, wallets=16, keys_each=10):
    """The storm's 160 keys, each linked to one of 16 wallets."""
    clients, emails = [], [f"storm-{uuid.uuid4().hex[:8]}-{wallet}@example.com" for wallet in range(wallets)]
    connection = Connection(base)
    for email in emails:
        # Registered from a first key, whose nonce login links it and verifies the app instance.
        first = DeviceKey()
        status, _, answer = await proved(connection, first, "POST", "/v1/enrollment/users", {"userProfile": profile(email)}, timeout=60)
        assert status == 201, answer
        status, _, answer = await proved(connection, first, "POST", "/v1/auth/login/nonce", {"nonce": answer["nonce"]}, timeout=60)
        assert status == 200, answer
        clients.append((email, first))
        for _ in range(keys_each - 1):
            key = DeviceKey()
            status, _, answer = await proved(connection, key, "POST", "/v1/auth/login/password",
                                             {"username": email, "password": PASSWORD}, timeout=60)
            if answer.get("code") == 412:
                token = answer["mfaToken"]
                status, _, answer = await proved(connection, key, "POST", "/v1/auth/mfa",
                                                 {"challengeToken": token["challengeToken"],
                                                  "mfaSecretAnswer": ANSWERS[token["mfaSecretQuestion"]]}, timeout=60)
            assert status == 200, answer
            clients.append((email, key))
    connection.close()
    return clients


async def logins(base, clients, seconds, timeout=10.0, pause=0.2):
    """Each client logs in again and again until `seconds` pass; after a 503 it waits `pause`."""
    admitted, refused, timeouts, others = [], 0, 0, collections.Counter()
    deadline = time.monotonic() + seconds

    async def client(email, key):
        nonlocal refused, timeouts
        connection = Connection(base)
        while time.monotonic() < deadline:
            sent = time.monotonic()
            try:
                status, _, _ = await proved(connection, key, "POST", "/v1/auth/login/password",
                                            {"username": email, "password": PASSWORD}, timeout=timeout)
            except asyncio.TimeoutError:
                timeouts += 1
                continue
            except (ConnectionError, asyncio.IncompleteReadError):
                others["connection"] += 1
                await asyncio.sleep(pause)
                continue
            if status == 200:
                admitted.append(time.monotonic() - sent)
            elif status == 503:
                refused += 1
                await asyncio.sleep(pause)
            else:
                others[status] += 1
        connection.close()

    start = time.monotonic()
    await asyncio.gather(*(client(email, key) for email, key in clients))
    return admitted, refused, timeouts, others, time.monotonic() - start


async def registrations(base, count, seconds, pause=0.2):
    done, refused = [], 0
    deadline = time.monotonic() + seconds

    async def client():
        nonlocal refused
        connection = Connection(base)
        while time.monotonic() < deadline:
            sent = time.monotonic()
            status, _, _ = await connection.call("POST", "/v1/enrollment/users",
                                                 {"userProfile": profile(f"reg-{uuid.uuid4().hex}@example.com")}, timeout=30)
            if status == 201:
                done.append(time.monotonic() - sent)
            elif status == 503:
                refused += 1
                await asyncio.sleep(pause)
        connection.close()

    start = time.monotonic()
    await asyncio.gather(*(client() for _ in range(count)))
    return done, refused, time.monotonic() - start


async def fresh_nonces(base, clients):
    """Each key's current nonce: a login whose proof carries none is refused (`use_dpop_nonce`) with
    it at the edge, before the credential is read (no attempt is counted)."""
    connection, path = Connection(base), "/v1/auth/login/password"
    for email, key in clients:
        key.nonce = None
        _, headers, answer = await connection.call("POST", path, {"username": email, "password": PASSWORD},
                                                   {"DPoP": key.proof("POST", base + path)}, timeout=60)
        assert answer.get("error", {}).get("id") == "use_dpop_nonce" and headers.get("dpop-nonce"), answer
        key.nonce = headers["dpop-nonce"]
    connection.close()


def presign(base, clients, count):
    """`count` login proofs per key, each with its own jti, the key's current nonce and now as iat
    (the server takes iat within ±60 s and a nonce for 60–120 s: a phase of up to a minute)."""
    url = base + "/v1/auth/login/password"
    for _, key in clients:
        key.ready = collections.deque(key.proof("POST", url) for _ in range(count))


class CPU:
    """The CPU the driver and the server used between start and the call, in cores."""

    def __init__(self):
        self.pid = os.environ.get("SERVER_PID")
        self.start = time.monotonic(), self.driver(), self.server()

    def driver(self):
        times = os.times()
        return times.user + times.system

    def server(self):
        if not self.pid:
            return 0.0
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __str__(self):
        wall = time.monotonic() - self.start[0]
        server = f", server {(self.server() - self.start[2]) / wall:.2f}" if self.pid else ""
        return f"CPU: driver {(self.driver() - self.start[1]) / wall:.2f} cores{server}"


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000 if ordered else 0


async def main():
    base = sys.argv[1].rstrip("/")
    clients = await setup(base)
    if "--setup-only" in sys.argv:
        return

    async def timed(chosen, count):
        if PRESIGN:
            await fresh_nonces(base, chosen)
            presign(base, chosen, count)
        cpu = CPU()
        return await logins(base, chosen, DURATION), cpu

    # Up to one login a second per client of the capacity phase, five attempts per storm client.
    (admitted, refused, timeouts, others, seconds), cpu = await timed(clients[:16], int(DURATION * 2) + 10)
    capacity = len(admitted) / seconds
    print(f"capacity (16 clients): {capacity:.1f} logins/s, p50 {percentile(admitted, .5):.0f} ms, "
          f"p99 {percentile(admitted, .99):.0f} ms, 503 {refused}, timeouts {timeouts}, other {dict(others)}; {cpu}")
    if "storm" in PHASES:
        (admitted, refused, timeouts, others, seconds), cpu = await timed(clients, int(DURATION * 6) + 10)
        rate = len(admitted) / seconds
        print(f"storm (160 clients, 10 s timeout, again 200 ms after a 503): {rate:.1f} logins/s = "
              f"{rate / capacity * 100:.0f} % of capacity (target ≥ 80 %), admitted p50 {percentile(admitted, .5):.0f} ms "
              f"p99 {percentile(admitted, .99):.0f} ms (target ≤ 2000), 503 {refused} ({refused / seconds:.0f}/s), "
              f"timeouts {timeouts} (target 0), other {dict(others)}; {cpu}")
    if "registrations" in PHASES:
        cpu = CPU()
        done, refused, seconds = await registrations(base, 16, DURATION)
        rate = len(done) / seconds
        print(f"registrations (16 clients): {rate:.2f}/s = {rate * 5 / capacity * 100:.0f} % of the hash budget "
              f"({capacity / 5:.2f}/s at 5 hashes each; target ≥ 90 %), p99 {percentile(done, .99):.0f} ms, 503 {refused}; {cpu}")


if __name__ == "__main__":
    asyncio.run(main())
