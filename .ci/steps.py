"""Shared by the CI scripts: numbered checks that stop at the first failure, and messages read
from the server's file courier."""
import json
import sys
import time

passed = 0


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
