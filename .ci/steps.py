"""Shared by the CI scripts: numbered checks that stop at the first failure, messages read from the
server's file courier, and starting `latchkey serve`."""
import json
import os
import subprocess
import sys
import time
import urllib.request

passed = 0

# The stages check what the server does, not how fast a shared CI disk answers: a PostgreSQL call
# held past the default 1 s bound by a checkpoint's fsync or PgBouncer's queue would answer 503
# and fail a step about something else. The bound itself is the outage stage's subject (which
# keeps the default) and PostgresBoundTests'.
DATABASE_TIMEOUT_MILLISECONDS = 10000


def check(condition, what):
    """Records a passed step, or stops the run naming the failed one."""
    global passed
    if not condition:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    passed += 1
    print(f"ok - {what}")


def courier_data(outbox, recipient, template, key):
    """The `data[key]` of the newest message of `template` to `recipient`, waiting up to 10 s."""
    for _ in range(100):
        try:
            with open(outbox) as lines:
                for line in reversed(lines.read().splitlines()):
                    message = json.loads(line)
                    if message["to"] == recipient and message["template"] == template:
                        return message["data"][key]
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    check(False, f"the {template} message reaches {recipient}")


def serve(binary, port, database, config):
    """Starts `latchkey serve` and returns its process once /ready answers 200 (20 s at most)."""
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--database", database, "--config", config],
                              env={**os.environ, "LOG_LEVEL": "error"}, stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=2) as response:
                if response.status == 200:
                    return server
        except OSError:
            pass
        time.sleep(0.2)
    server.kill()
    print(f"FAILED: the server on port {port} did not become ready", file=sys.stderr)
    sys.exit(1)
