#!/usr/bin/env python3
"""Logs in to a Latchkey server with a DPoP-bound session (RFC 9449) and checks the session.

    pip install cryptography
    python3 docs/examples/dpop_login.py http://127.0.0.1:8080 ada@example.com 'correct-horse-42' [MFA answer]

The device key is made fresh each run, so the wallet sees a new device: the password login answers
the MFA prompt (412) and, given the answer, the MFA call links the key and opens a bound session.
"""
import base64, hashlib, json, sys, time, uuid, urllib.error, urllib.request
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

APP = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class DeviceKey:
    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        numbers = self.key.public_key().public_numbers()
        self.jwk = {"crv": "P-256", "kty": "EC", "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}
        # RFC 7638: required members, sorted, no whitespace.
        self.thumbprint = b64(hashlib.sha256(json.dumps(self.jwk, sort_keys=True, separators=(",", ":")).encode()).digest())
        self.nonce = None

    def proof(self, method: str, url: str, token: str | None = None) -> str:
        header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk}
        claims = {"jti": str(uuid.uuid4()), "htm": method, "htu": url.split("?")[0], "iat": int(time.time())}
        if token:
            claims["ath"] = b64(hashlib.sha256(token.encode()).digest())
        if self.nonce:
            claims["nonce"] = self.nonce
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        r, s = decode_dss_signature(self.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def call(key: DeviceKey, base: str, method: str, path: str, body=None, token=None):
    """One call with a proof; a `use_dpop_nonce` refusal is retried once with the server's nonce."""
    for _ in range(2):
        headers = {"X-Application-Signature": APP, "X-Device-ID": "example-script", "Content-Type": "application/json",
                   "DPoP": key.proof(method, base + path, token)}
        if token:
            headers["Authorization"] = "DPoP " + token
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request) as response:
                key.nonce = response.headers.get("DPoP-Nonce") or key.nonce
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            key.nonce = error.headers.get("DPoP-Nonce") or key.nonce
            answer = json.loads(error.read() or b"{}")
            if answer.get("error", {}).get("id") != "use_dpop_nonce":
                return error.code, answer


def main():
    base, email, password = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    key = DeviceKey()
    print("device key thumbprint:", key.thumbprint)
    status, login = call(key, base, "POST", "/v1/auth/login/password", {"username": email, "password": password})
    if login.get("code") == 412:
        print("MFA prompt:", login["mfaToken"]["mfaSecretQuestion"])
        answer = sys.argv[4] if len(sys.argv) > 4 else input("answer: ")
        status, login = call(key, base, "POST", "/v1/auth/mfa",
                             {"challengeToken": login["mfaToken"]["challengeToken"], "mfaSecretAnswer": answer})
    print(status, "tokenType:", login.get("tokenType"), login.get("error", ""))
    token = login["sessionToken"]
    print("session with the key:", call(key, base, "GET", "/v1/auth/session", token=token)[0])
    print("the same token from another key:", call(DeviceKey(), base, "GET", "/v1/auth/session", token=token)[0])


if __name__ == "__main__":
    main()
