"""CI: `kill -9` during registrations. After a restart every acknowledged registration is there
(its password login answers 418, email not verified; an unknown address answers 401) and every
queued message is
delivered (the verification email of each acknowledged registration reaches the file courier,
messages the killed server had claimed once their lease ends): a registration and its outbox
message commit in one transaction before the 201.

Usage: durability_test.py BINARY WORKDIR PORT DATABASE
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

from steps import DATABASE_TIMEOUT_MILLISECONDS, check, serve

BINARY, WORK, PORT, DATABASE = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
BASE = f"http://127.0.0.1:{PORT}"
APP = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": "durability-device",
       "Content-Type": "application/json"}
OUTBOX = os.path.join(WORK, "outbox.jsonl")
# The courier leases what it claims for 2 × courier.attemptTimeoutSeconds + 30 s (CourierSettings.leaseSeconds);
# a short attempt bound keeps the lease a message claimed by the killed server waits out short.
ATTEMPT_TIMEOUT_SECONDS = 5
COURIER_LEASE_SECONDS = 2 * ATTEMPT_TIMEOUT_SECONDS + 30
config = os.path.join(WORK, "durability.yaml")
with open(config, "w") as file:
    json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "rateLimits": {"enabled": False}, "databaseTimeoutMilliseconds": DATABASE_TIMEOUT_MILLISECONDS,
               "secrets": {"pepperFile": f"{WORK}/pepper", "caKeyFile": f"{WORK}/ca-key.pem", "caCertificateFile": f"{WORK}/ca.pem", "sealKeyFile": f"{WORK}/seal-key.pem"},
               "courier": {"channel": "file", "path": OUTBOX, "pollIntervalMilliseconds": 100,
                           "attemptTimeoutSeconds": ATTEMPT_TIMEOUT_SECONDS},
               "issuer": {"deviceBinding": "optional"}}, file)
subprocess.run([BINARY, "secrets", "generate", "--database", DATABASE, "--config", config], check=True, capture_output=True)


def start():
    return serve(BINARY, PORT, DATABASE, config)


def register(email):
    profile = {"firstName": "Dura", "lastName": "Ble", "email": email, "password": "durable-pass-1",
               "confirmPassword": "durable-pass-1", "passcode": "314159", "confirmPasscode": "314159",
               "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                              "What is your mother's maiden name?": "Byron"}}
    request = urllib.request.Request(BASE + "/v1/enrollment/users", data=json.dumps({"userProfile": profile}).encode(),
                                     method="POST", headers=APP)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def login_code(email):
    """The spec's code a password login answers: 418 for a registration awaiting its email link."""
    request = urllib.request.Request(BASE + "/v1/auth/login/password", method="POST", headers=APP,
                                     data=json.dumps({"username": email, "password": "durable-pass-1"}).encode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"{}").get("code", response.status)
    except urllib.error.HTTPError as error:
        return json.loads(error.read() or b"{}").get("error", {}).get("code", error.code)


server = start()
acknowledged, lock, stop = [], threading.Lock(), threading.Event()


def worker(prefix):
    index = 0
    while not stop.is_set():
        index += 1
        email = f"{prefix}-{index}-{time.time_ns()}@example.com"
        try:
            if register(email) == 201:
                with lock:
                    acknowledged.append(email)
        except OSError:
            pass


threads = [threading.Thread(target=worker, args=(f"w{n}",)) for n in range(4)]
for thread in threads:
    thread.start()
time.sleep(3)
server.send_signal(signal.SIGKILL)
server.wait()
stop.set()
for thread in threads:
    thread.join()
check(len(acknowledged) >= 5, f"{len(acknowledged)} registrations acknowledged before kill -9")

server = start()
try:
    # (Registering an address again would replace a registration still awaiting its link.)
    present = [login_code(email) for email in acknowledged]
    check(all(code == 418 for code in present),
          f"after the restart every acknowledged registration is there (its login: 418): {sorted(set(present))}")
    check(login_code("never-registered@example.com") == 401, "an address never registered answers 401")
    # A message the killed server had claimed (leased) but not yet handed over is claimed again
    # when its lease ends, so the wait covers the lease.
    deadline = time.time() + 30 + COURIER_LEASE_SECONDS
    missing = set(acknowledged)
    while missing and time.time() < deadline:
        if os.path.exists(OUTBOX):
            with open(OUTBOX) as lines:
                delivered = {json.loads(line)["to"] for line in lines if line.strip()}
            missing -= delivered
        time.sleep(0.5)
    check(not missing, f"every acknowledged registration's verification email was delivered ({len(missing)} missing)")
finally:
    server.terminate()
    server.wait()
print(f"durability: {__import__('steps').passed} steps passed")
