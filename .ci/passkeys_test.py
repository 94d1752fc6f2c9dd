#!/usr/bin/env python3
"""Passkeys over real HTTP against `latchkey serve`, with Yubico's python-fido2 as the independent
side: a software authenticator built on `cryptography` makes its credentials and signatures, and
fido2's WebAuthn types (`CollectedClientData`, `AuthenticatorData`, `AttestedCredentialData`,
`AttestationObject`, the COSE key) encode what it sends and parse the server's options. Registers a
passkey from a privileged session, signs a new phone in with it (no username, no prompt), answers the
MFA prompt of another phone with it, and checks the refused attacks. Exits non-zero at the first
broken step.

Usage: passkeys_test.py LATCHKEY_BINARY WORKDIR PORT [DATABASE]
"""
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData,
                            PublicKeyCredentialCreationOptions, PublicKeyCredentialRequestOptions)

import steps
from steps import DATABASE_TIMEOUT_MILLISECONDS, check, serve

BINARY, WORK, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
DATABASE = sys.argv[4] if len(sys.argv) > 4 else f"sqlite:{WORK}/passkeys.sqlite"
BASE = f"http://127.0.0.1:{PORT}"
ORIGIN, RP_ID = BASE, "127.0.0.1"
FLAGS = AuthenticatorData.FLAG


def api(method, path, body=None, device="phone-1", session=None):
    headers = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": device,
               "Content-Type": "application/json"}
    if session:
        headers["Authorization"] = f"Bearer {session}"
    request = urllib.request.Request(BASE + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class Authenticator:
    """A platform authenticator: one ES256 credential, user verification, a counter."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0

    def create(self, options):
        parsed = PublicKeyCredentialCreationOptions.from_dict(options)
        self.user_handle = parsed.user.id
        client_data = CollectedClientData.create("webauthn.create", parsed.challenge, ORIGIN)
        attested = AttestedCredentialData.create(b"\0" * 16, self.credential_id, ES256.from_cryptography_key(self.key.public_key()))
        auth_data = AuthenticatorData.create(_sha256(RP_ID.encode()),
                                             FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS | FLAGS.AT, 0, attested)
        attestation = AttestationObject.create("none", auth_data, {})
        check(AttestationObject(bytes(attestation)).auth_data.credential_data.credential_id == self.credential_id,
              "fido2 parses the attestation object the authenticator made")
        return {"id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": websafe_encode(bytes(client_data)),
                             "attestationObject": websafe_encode(bytes(attestation)), "transports": ["internal"]}}

    def get(self, options, origin=ORIGIN, flags=None, tamper=False):
        parsed = PublicKeyCredentialRequestOptions.from_dict(options)
        self.counter += 1
        client_data = CollectedClientData.create("webauthn.get", parsed.challenge, origin)
        auth_data = AuthenticatorData.create(_sha256(RP_ID.encode()), flags or (FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS),
                                             self.counter)
        signature = self.key.sign(bytes(auth_data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
        if tamper:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        if not tamper:  # fido2's COSE key checks the signature the server is about to check
            ES256.from_cryptography_key(self.key.public_key()).verify(bytes(auth_data) + client_data.hash, signature)
        return {"id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": websafe_encode(bytes(client_data)), "authenticatorData": websafe_encode(bytes(auth_data)),
                             "signature": websafe_encode(signature), "userHandle": websafe_encode(self.user_handle)}}


def _sha256(data):
    digest = hashes.Hash(hashes.SHA256())
    digest.update(data)
    return digest.finalize()


config = os.path.join(WORK, "passkeys.yaml")
with open(config, "w") as file:
    json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "rateLimits": {"enabled": False}, "publicURL": BASE,
               "databaseTimeoutMilliseconds": DATABASE_TIMEOUT_MILLISECONDS,
               "secrets": {"pepperFile": f"{WORK}/pepper", "caKeyFile": f"{WORK}/ca-key.pem", "caCertificateFile": f"{WORK}/ca.pem",
                           "sealKeyFile": f"{WORK}/seal-key.pem"},
               "issuer": {"deviceBinding": "optional", "emailVerificationRequired": False}}, file)
subprocess.run([BINARY, "secrets", "generate", "--database", DATABASE, "--config", config], check=True, capture_output=True)
server = serve(BINARY, PORT, DATABASE, config)
try:
    questions = api("GET", "/v1/enrollment/mfa-questions")[1]
    answers = {q["mfaQuestion"] if isinstance(q, dict) else q: "answer"
               for q in questions["mfaQuestions"][:questions["numberOfRequiredQuestions"]]}
    profile = {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com", "password": "correct-horse-42",
               "confirmPassword": "correct-horse-42", "passcode": "314159", "confirmPasscode": "314159", "mfaAnswers": answers}
    status, registered = api("POST", "/v1/enrollment/users", {"userProfile": profile})
    check(status == 201, f"registration ({status})")
    check(api("POST", "/v1/auth/login/nonce", {"nonce": registered["nonce"]})[0] == 200, "the nonce links phone-1")
    status, login = api("POST", "/v1/auth/login/password", {"username": "ada@example.com", "password": "correct-horse-42"})
    session = login.get("sessionToken")
    check(status == 200 and session, "a password login: a privileged session")

    authenticator = Authenticator()
    status, options = api("POST", "/v1/passkeys/registration-options", {}, session=session)
    check(status == 200 and options["publicKey"]["rp"]["id"] == RP_ID, "creation options for the relying party")
    status, passkey = api("POST", "/v1/passkeys", {"credential": authenticator.create(options["publicKey"]), "name": "CI"}, session=session)
    check(status == 201 and passkey.get("name") == "CI", f"the passkey is registered ({status})")

    def login(device, **spoil):
        status, options = api("POST", "/v1/auth/login/passkey/options", {}, device=device)
        check(status == 200 and "allowCredentials" not in options["publicKey"], "discoverable request options")
        credential = authenticator.get(options["publicKey"], **spoil)
        return api("POST", "/v1/auth/login/passkey", {"credential": credential}, device=device), credential

    (status, answer), credential = login("phone-2")
    check(status == 200 and answer.get("sessionToken"), f"a new phone signs in with the passkey alone ({status})")
    status, replay = api("POST", "/v1/auth/login/passkey", {"credential": credential}, device="phone-2")
    check(status == 401, "the same assertion again is refused (401)")
    check(login("phone-3", origin="https://evil.example")[0][0] == 401, "another origin is refused (401)")
    check(login("phone-3", flags=FLAGS.UP | FLAGS.BE | FLAGS.BS)[0][0] == 401, "no user verification is refused (401)")
    check(login("phone-3", tamper=True)[0][0] == 401, "a tampered signature is refused (401)")
    authenticator.counter = 0
    check(login("phone-3")[0][0] == 401, "a counter that went back is refused (401)")
    authenticator.counter = 100

    status, prompt = api("POST", "/v1/auth/login/password", {"username": "ada@example.com", "password": "correct-horse-42"},
                         device="phone-4")
    token = prompt.get("mfaToken", {})
    check(status == 200 and prompt.get("code") == 412 and token.get("factors", [None])[0] == "passkey",
          "a password login from phone-4 is prompted, the passkey first")
    status, answer = api("POST", "/v1/auth/mfa", {"challengeToken": token["challengeToken"],
                                                   "passkey": authenticator.get(token["passkeyOptions"])}, device="phone-4")
    check(status == 200 and answer.get("sessionToken"), "the passkey answers the prompt and links phone-4")
finally:
    server.terminate()
    server.wait()
print(f"passkeys: {steps.passed} steps passed")
