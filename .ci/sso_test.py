#!/usr/bin/env python3
"""The whole SSO path against a real, independent OpenID Connect provider (PyPI
`oidc-provider-mock`, started with client registration required): register a client there, start
`latchkey serve` trusting it, obtain real authorization codes from the provider's authorization
endpoint, then retrieveCustomerProfileMetaData → registerCustomer → loginByNonce →
loginByFederatedIdentity from the same device, and the refusals. Exits non-zero at the first
broken step.

Usage: sso_test.py LATCHKEY_BINARY PROVIDER_URL WORKDIR
"""
import json
import os
import hashlib
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid

from steps import DATABASE_TIMEOUT_MILLISECONDS, check, serve
import steps

BINARY, PROVIDER, WORK = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
# The database the server uses: sqlite:PATH (default) or a postgres:// URL.
DATABASE = sys.argv[4] if len(sys.argv) > 4 else f"sqlite:{WORK}/sso.sqlite"
PORT = 18100
BASE = f"http://127.0.0.1:{PORT}"
REDIRECT = "http://127.0.0.1/wallet-callback"
DEVICE = "sso-device"
HEADERS = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": DEVICE,
           "Content-Type": "application/json"}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def http(method, url, body=None, headers=None, form=False):
    data = None
    if body is not None:
        data = urllib.parse.urlencode(body).encode() if form else json.dumps(body).encode()
    request = urllib.request.Request(url, method=method, data=data, headers=headers or {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def api(method, path, body):
    status, _, data = http(method, BASE + path, body, HEADERS)
    return status, json.loads(data or b"{}")


def authorization_code(client_id, subject):
    """Signs `subject` in at the provider's authorization endpoint, as the app's browser would."""
    query = urllib.parse.urlencode({"client_id": client_id, "redirect_uri": REDIRECT, "response_type": "code",
                                    "scope": "openid email profile", "state": "s"})
    status, headers, _ = http("POST", f"{PROVIDER}/oauth2/authorize?{query}", {"sub": subject}, form=True,
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
    location = headers.get("Location", "")
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query).get("code", [None])[0]
    check(status in (302, 303) and code, f"the provider issues an authorization code for {subject}")
    return code


status, _, data = http("POST", f"{PROVIDER}/oauth2/clients", {"redirect_uris": [REDIRECT]},
                       {"Content-Type": "application/json"})
check(status == 201, "the wallet registers as a client at the provider")
client = json.loads(data)
SUBJECT = f"sso-{uuid.uuid4().hex[:8]}"
EMAIL = f"{SUBJECT}@idp.example"
status, _, _ = http("PUT", f"{PROVIDER}/users/{SUBJECT}",
                    {"email": EMAIL, "email_verified": True, "given_name": "Ada", "family_name": "Lovelace"},
                    {"Content-Type": "application/json"})
check(status == 204, "the provider knows the user and its claims")

config = os.path.join(WORK, "sso.yaml")
with open(config, "w") as file:
    json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "rateLimits": {"enabled": False}, "databaseTimeoutMilliseconds": DATABASE_TIMEOUT_MILLISECONDS,
               "secrets": {"pepperFile": f"{WORK}/pepper", "caKeyFile": f"{WORK}/ca-key.pem", "caCertificateFile": f"{WORK}/ca.pem", "sealKeyFile": f"{WORK}/seal-key.pem"},
               # This script signs no DPoP proofs: the migration mode (docs/configuration.md).
               "issuer": {"deviceBinding": "optional",
                          "identityProviders": [{"id": "mock", "issuer": PROVIDER, "clientId": client["client_id"],
                                                 "clientSecret": client["client_secret"], "redirectUri": REDIRECT}]}}, file)
# Secrets are provided, as for a cluster (a PostgreSQL database refuses to start without them).
subprocess.run([BINARY, "secrets", "generate", "--database", DATABASE, "--config", config], check=True, capture_output=True)
server = serve(BINARY, PORT, DATABASE, config)
try:

    code = authorization_code(client["client_id"], SUBJECT)
    status, metadata = api("POST", "/v1/enrollment/customer-profile-metadata",
                           {"authorizationCode": code, "identityProvider": "mock",
                            "additionalInformation": [{"additionalDataKey": "given_name"}]})
    check(status == 200, "retrieveCustomerProfileMetaData exchanges a real code")
    check(json.loads(metadata["customerInfoJson"])["sub"] == SUBJECT, "customerInfoJson carries the provider's subject")
    check(metadata["additionalInformation"][0].get("additionalDataValue") == "Ada", "the requested claim is answered")
    status, reused = api("POST", "/v1/enrollment/customer-profile-metadata", {"authorizationCode": code, "identityProvider": "mock"})
    check(status == 401 and reused["error"]["code"] == 401, "a used authorization code is refused (401)")

    questions = api("GET", "/v1/enrollment/mfa-questions", None)[1]
    profiles = [{"question": q, "answer": "answer"} for q in questions["mfaQuestions"][:questions["numberOfRequiredQuestions"]]]
    registration = {"nonce": metadata["nonce"], "email": EMAIL, "firstName": "Ada", "lastName": "Lovelace",
                    "passcode": "314159", "mfaSecurityProfiles": profiles}
    status, forged = api("POST", "/v1/enrollment/customers", {**registration, "nonce": "forged"})
    check(status == 401 and forged["error"]["code"] == 401, "a forged nonce is refused (401)")
    status, registered = api("POST", "/v1/enrollment/customers", registration)
    check(status == 201 and registered["customerUri"].startswith("urn:latchkey:customer:"), "registerCustomer creates the wallet")
    status, again = api("POST", "/v1/enrollment/customers", registration)
    check(status == 401, "a used nonce is refused (401)")

    status, first = api("POST", "/v1/auth/login/nonce", {"nonce": registered["nonce"]})
    check(status == 200 and "sessionToken" in first, "loginByNonce with registerCustomer's nonce")
    status, login = api("POST", "/v1/auth/login/federated",
                        {"authorizationCode": authorization_code(client["client_id"], SUBJECT), "identityProvider": "mock"})
    check(status == 200 and login.get("customerUri") == registered["customerUri"] and "sessionToken" in login,
          "loginByFederatedIdentity from the same device")
    status, stranger = api("POST", "/v1/auth/login/federated",
                           {"authorizationCode": authorization_code(client["client_id"], "someone-else"), "identityProvider": "mock"})
    check(status == 401, "an identity without a wallet is refused (401)")

    # The audit trail through the CLI, on the server's database while it runs.
    def cli(*args):
        return subprocess.run([BINARY, *args, "--database", DATABASE, "--config", config], env={**os.environ, "LOG_LEVEL": "error"},
                              capture_output=True, text=True, check=True).stdout
    subprocess.run([BINARY, "users", "lock", EMAIL, "--database", DATABASE, "--config", config], check=True,
                   capture_output=True)
    events = cli("users", "events", EMAIL).splitlines()
    kinds = [line.split("\t")[1] for line in events]
    check(kinds[0] == "user.registered" and "method=sso" in events[0], "latchkey users events: the SSO registration first")
    check(any(line.split("\t")[1] == "login.succeeded" and "method=sso" in line for line in events),
          "latchkey users events: the federated login")
    check(kinds[-1] == "operator.command" and "command=admin lockUser" in events[-1] and "\toperator\t" in events[-1],
          "latchkey users events: the operator's lock, by the operator")
    exported = os.path.join(WORK, "audit.jsonl")
    cli("audit", "export", "--output", exported)
    with open(exported) as lines:
        trail = [json.loads(line) for line in lines]
    check(oct(os.stat(exported).st_mode & 0o777) == "0o600", "latchkey audit export writes a 0600 file")
    check(any(e["type"] == "login.failed" and e["reason"] == "no_linked_wallet" for e in trail),
          "the export holds the refused login of an identity without a wallet")
    check([e["id"] for e in trail] == sorted(e["id"] for e in trail) and trail[-1]["details"]["command"] == "audit export",
          "the export is in recording order and ends with its own record")

    # latchkey users import, on the same database while the server runs: a Django user logs in with
    # the password Django hashed (made by Django 5.2's PBKDF2PasswordHasher, 1000 iterations).
    django = "pbkdf2_sha256$1000$seasalt123abc$TR7Lw2b27Zh/3XCfAfqkDR7b7HOc5AQmdiwZfB1pwfQ="
    users = os.path.join(WORK, "users.jsonl")
    with open(users, "w") as out:
        out.write(json.dumps({"email": "django@example.com", "firstName": "Dj", "lastName": "Ango", "emailVerified": True,
                              "password": {"hash": django}}) + "\n")
        out.write(json.dumps({"email": "not-an-email", "firstName": "No", "lastName": "Address", "emailVerified": True,
                              "password": {"hash": django}}) + "\n")
    run = subprocess.run([BINARY, "users", "import", users, "--database", DATABASE, "--config", config],
                         env={**os.environ, "LOG_LEVEL": "error"}, capture_output=True, text=True)
    check(run.returncode == 1 and run.stderr.startswith("line 2: email:") and "1 created" in run.stdout
          and "1 failed" in run.stdout, "latchkey users import: one user created, the bad line 2 reported, exit status 1")
    status, wrong = api("POST", "/v1/auth/login/password", {"username": "django@example.com", "password": "wrong-horse-1"})
    status2, right = api("POST", "/v1/auth/login/password", {"username": "django@example.com", "password": "correct-horse-42"})
    check(status == 401 and status2 == 200 and "sessionToken" in right,
          "the imported Django hash checks the password (401 for a wrong one; the first device of a wallet without answers is linked)")
    with open(users) as stdin:
        again = subprocess.run([BINARY, "users", "import", "-", "--database", DATABASE, "--config", config], stdin=stdin,
                               env={**os.environ, "LOG_LEVEL": "error"}, capture_output=True, text=True)
    check("0 created" in again.stdout and "1 skipped" in again.stdout, "a second run from standard input skips the user")

    # latchkey operators keys (issue 25): made, listed, revoked, on the server's database; the
    # database holds the key's digest, never the key.
    key = cli("operators", "keys", "create", "--name", "support-desk", "--role", "support", "--days", "30").strip()
    key_id = key.split("_")[1] if key.startswith("lkop_") else ""
    check(key.startswith("lkop_") and len(key) > 60 and len(key_id) == 16, "latchkey operators keys create prints the key once")
    listed = cli("operators", "keys", "list").splitlines()
    check(len(listed) == 1 and listed[0].split("\t")[:4] == [key_id, "support", "active", "support-desk"]
          and key.split("_")[2] not in listed[0] and "last-used=never" in listed[0], "latchkey operators keys list: id, role, state, name")
    if DATABASE.startswith("sqlite:"):
        import sqlite3
        rows = sqlite3.connect(DATABASE[len("sqlite:"):]).execute("SELECT digest FROM operator_keys").fetchall()
        stored = [row[0] for row in rows]
    else:
        stored = subprocess.run(["psql", DATABASE, "-tAc", "SELECT digest FROM operator_keys"], capture_output=True, text=True,
                                check=True).stdout.split()
    check(stored == [hashlib.sha256(key.encode()).hexdigest()], "the database holds the key's SHA-256 digest only")
    cli("operators", "keys", "revoke", key_id)
    check(cli("operators", "keys", "list").split("\t")[2] == "revoked", "latchkey operators keys revoke")
    again = subprocess.run([BINARY, "operators", "keys", "revoke", key_id, "--database", DATABASE, "--config", config],
                           env={**os.environ, "LOG_LEVEL": "error"}, capture_output=True, text=True)
    check(again.returncode == 64 and "There is no such operator key that is not revoked." in again.stderr, "revoking it again is refused (exit 64, the admin API's unknown_operator_key message)")
    wrong = subprocess.run([BINARY, "operators", "keys", "create", "--name", "x", "--role", "root", "--database", DATABASE,
                            "--config", config], env={**os.environ, "LOG_LEVEL": "error"}, capture_output=True, text=True)
    check(wrong.returncode != 0 and "role" in wrong.stderr, "an unknown role is refused")
finally:
    server.terminate()
    server.wait()
print(f"sso: {steps.passed} steps passed")
