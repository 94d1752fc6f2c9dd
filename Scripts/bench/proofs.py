#!/usr/bin/env python3
"""Pre-signed DPoP proofs for an external load generator (Scripts/bench-wrk, issue 24).

    python3 Scripts/bench/proofs.py BASE COUNT OUT

Registers a wallet from a fresh device key and logs it in by its nonce with a proof, so its session
is bound to the key (RFC 9449); prints the session token; writes COUNT proofs of
`GET BASE/v1/auth/session` for that token (each its own `jti`, `ath` of the token, `iat` 30 s
ahead so the batch stays inside the server's ±60 s window for a run of up to 80 s) to OUT, one per
line. Signing happens here, before the run, so the generator spends nothing on it.
"""
import hashlib, json, os, sys, time, uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples"))
from dpop_login import DeviceKey, b64, call  # noqa: E402
from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature  # noqa: E402


def main():
    base, count, out = sys.argv[1].rstrip("/"), int(sys.argv[2]), sys.argv[3]
    key = DeviceKey()
    profile = {"firstName": "Bench", "lastName": "Bound", "email": f"bound-{uuid.uuid4().hex[:8]}@example.com",
               "password": "correct-horse-42", "confirmPassword": "correct-horse-42", "passcode": "314159",
               "confirmPasscode": "314159",
               "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                              "What is your mother's maiden name?": "Byron"}}
    status, registered = call(key, base, "POST", "/v1/enrollment/users", {"userProfile": profile})
    assert status == 201, registered
    status, login = call(key, base, "POST", "/v1/auth/login/nonce", {"nonce": registered["nonce"]})
    assert status == 200 and login.get("tokenType") == "DPoP", login
    token = login["sessionToken"]
    header = b64(json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": key.jwk}).encode())
    ath = b64(hashlib.sha256(token.encode()).digest())
    iat = int(time.time()) + 30
    with open(out, "w") as lines:
        for _ in range(count):
            claims = {"jti": str(uuid.uuid4()), "htm": "GET", "htu": base + "/v1/auth/session", "iat": iat, "ath": ath}
            signing_input = header + "." + b64(json.dumps(claims).encode())
            r, s = decode_dss_signature(key.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
            lines.write(signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")) + "\n")
    print(token)


if __name__ == "__main__":
    main()
