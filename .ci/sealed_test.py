#!/usr/bin/env python3
"""Sealed credentials (the spec's encryptionSettings) with an independent HPKE implementation.

    python3 .ci/sealed_test.py LATCHKEY_BINARY WORKDIR PORT

Starts a server whose issuer requires PINs, passwords and MFA answers sealed, and seals them with
Python `cryptography`'s HPKE (RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256,
AES-256-GCM), bound in `info` to the field's JSON pointer, the operation id, the device key's
thumbprint and the proof's `jti`:
registration and a password login succeed; a plain password, a seal moved to another field and a
seal sent again with another proof are refused 400 naming the field; neither the request log nor
the database holds the password or a seal. The device's type, app and SDK versions (the app
context's headers) are kept and `latchkey users show` prints them.

Everything is made as docs/api.md ("Sealed credentials", "The bytes, exactly") states it, not from
the server's code: the worked example there is computed here from its fixed keys and must be the
document's text, its sealed value must open, and the pin and key id `latchkey secrets generate`
prints must be what the served public key hashes to.
"""
import base64, hashlib, json, os, subprocess, sys, time, urllib.error, urllib.request, uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "docs", "examples"))
from dpop_login import APP, DeviceKey, b64  # noqa: E402
from cryptography.hazmat.primitives import hpke, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402

binary, workdir, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
BASE = f"http://127.0.0.1:{port}"
SUITE = hpke.Suite(hpke.KEM.P256, hpke.KDF.HKDF_SHA256, hpke.AEAD.AES_256_GCM)
PASSWORD, PIN = "sealed-horse-battery-42", "271828"
ANSWERS = {"What was the name of your first pet?": "Rex", "In what city were you born?": "Lisbon",
           "What is your mother's maiden name?": "Murray"}
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


class SealingKey(DeviceKey):
    def proof_with(self, method, url, jti, token=None):
        original = uuid.uuid4
        uuid.uuid4 = lambda: jti  # the example's proof takes its jti from uuid4
        try:
            return self.proof(method, url, token)
        finally:
            uuid.uuid4 = original


def token(key):
    """A key as one token of a JSON pointer (RFC 6901: `~` as `~0`, then `/` as `~1`)."""
    return key.replace("~", "~0").replace("/", "~1")


def info_of(pointer, operation, thumbprint, jti):
    """The HPKE info: five parts' UTF-8 bytes joined by NUL bytes."""
    return b"\0".join(part.encode() for part in ["latchkey credential seal v1", pointer, operation, thumbprint, jti])


def pin_of(public_key_base64):
    """The pin (base64 SHA-256 of the 65-byte point) and the key id (its first 8 bytes, hex)."""
    digest = hashlib.sha256(base64.b64decode(public_key_base64)).digest()
    return base64.b64encode(digest).decode(), digest[:8].hex()


def seal(settings, value, pointer, operation, jti):
    key_thumbprint = device.thumbprint  # the seal is bound to the key that signs the proof
    key = settings["keys"][0]
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), base64.b64decode(key["publicKey"]))
    sealed = SUITE.encrypt(value.encode("utf-8"), public, info=info_of(pointer, operation, key_thumbprint, jti))
    return f"hpke1.{key['keyId']}.{b64(sealed[:65])}.{b64(sealed[65:])}"


def worked_example():
    """docs/api.md's worked example, computed from its fixed keys, is the document's text, and the
    document's sealed value opens under its info to the value's UTF-8 bytes."""
    document = open(os.path.join(os.path.dirname(__file__), "..", "docs", "api.md"), encoding="utf-8").read()
    seal_key = ec.derive_private_key(int.from_bytes(bytes(range(1, 33)), "big"), ec.SECP256R1())
    device_key = ec.derive_private_key(int.from_bytes(bytes(range(33, 65)), "big"), ec.SECP256R1())
    point = seal_key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    public_key = base64.b64encode(point).decode()
    pin, key_id = pin_of(public_key)
    numbers = device_key.public_key().public_numbers()
    jwk = json.dumps({"crv": "P-256", "kty": "EC", "x": b64(numbers.x.to_bytes(32, "big")),
                      "y": b64(numbers.y.to_bytes(32, "big"))}, sort_keys=True, separators=(",", ":"))
    thumbprint = b64(hashlib.sha256(jwk.encode()).digest())
    operation, pointer, jti, value = "loginByUsernamePassword", "/password", "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b", "Zo\u00eb-2026"
    info = info_of(pointer, operation, thumbprint, jti)
    parts = [part.hex() for part in info.split(b"\0")]
    rows = [("seal key (private, hex)", bytes(range(1, 33)).hex()), ("publicKey (base64)", public_key),
            ("SHA-256 of its 65 bytes", hashlib.sha256(point).hexdigest()), ("keyId", key_id), ("pin", pin),
            ("device key (private, hex)", bytes(range(33, 65)).hex()), ("its JWK, RFC 7638 form", jwk),
            ("thumbprint", thumbprint), ("operation", operation), ("field", pointer), ("proof jti", jti),
            ("info (hex)", parts[0])] + [("", "00 " + part) for part in parts[1:]] + [
            ("value", value), ("plaintext (hex)", value.encode("utf-8").hex())]
    block = "\n".join(label.ljust(28) + text for label, text in rows)
    check(block in document, "docs/api.md prints the worked example as computed here from its keys")
    sealed = next((word for word in document.split() if word.startswith("hpke1." + key_id + ".")), "")
    parts = sealed.split(".")
    unb64 = lambda text: base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    try:
        opened = SUITE.decrypt(unb64(parts[2]) + unb64(parts[3]), seal_key, info=info) if len(parts) == 4 else None
    except Exception:
        opened = None
    check(opened == value.encode("utf-8"), f"the document's sealed value opens to the value's UTF-8 bytes ({sealed[:32]}…)")


def call(key, method, path, build, fixed_jti=None):
    """`build(jti)` makes the body for a proof with that jti; a nonce refusal is retried once."""
    for _ in range(2):
        jti = fixed_jti or str(uuid.uuid4())
        body = build(jti)
        headers = {"X-Application-Signature": APP, "X-Device-ID": "sealed-test", "Content-Type": "application/json",
                   "X-Device-Type": "python", "X-App-Version": "26.11.0.0p", "X-SDK-Version": "sealed-test/1",
                   "DPoP": key.proof_with(method, BASE + path, jti)}
        request = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), method=method, headers=headers)
        try:
            with urllib.request.urlopen(request) as response:
                key.nonce = response.headers.get("DPoP-Nonce") or key.nonce
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            key.nonce = error.headers.get("DPoP-Nonce") or key.nonce
            answer = json.loads(error.read() or b"{}")
            if answer.get("error", {}).get("id") != "use_dpop_nonce":
                return error.code, answer
    return 0, {}


worked_example()
os.makedirs(workdir, exist_ok=True)
config = os.path.join(workdir, "sealed.yaml")
with open(config, "w") as handle:
    handle.write(f"""hashing: {{ logN: 10, r: 8, p: 1 }}
rateLimits: {{ enabled: false }}
issuer: {{ deviceBinding: required, emailVerificationRequired: false,
          encryption: {{ pin: true, password: true, mfaAnswers: true }} }}
secrets: {{ pepperFile: {workdir}/pepper, caKeyFile: {workdir}/ca-key.pem, caCertificateFile: {workdir}/ca.pem,
           sealKeyFile: {workdir}/seal-key.pem }}
""")
database = os.path.join(workdir, "sealed.sqlite")
# What an operator reads to give apps their pin.
generated = subprocess.run([binary, "secrets", "generate", "--database", f"sqlite:{database}", "--config", config],
                           capture_output=True, text=True).stdout
printed = next((line.split() for line in generated.splitlines() if line.startswith("seal key")), [])
log = open(os.path.join(workdir, "server.log"), "w")
server = subprocess.Popen([binary, "serve", "--port", str(port), "--database", f"sqlite:{database}", "--config", config],
                          stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "LOG_LEVEL": "debug"})
try:
    for _ in range(150):
        try:
            urllib.request.urlopen(BASE + "/ready")
            break
        except Exception:
            time.sleep(0.2)
    request = urllib.request.Request(BASE + "/v1/enrollment/encryption-settings", headers={"X-Application-Signature": APP})
    settings = json.load(urllib.request.urlopen(request))
    check(settings["kEncryptPin"] and settings["kEncryptPassword"] and settings["kEncryptMFASecretAnswer"]
          and settings["keys"][0]["current"], "the served settings require sealing and name the current key")
    pin, key_id = pin_of(settings["keys"][0]["publicKey"])
    check(settings["keys"][0]["keyId"] == key_id and printed[-1:] == [pin] and f"id {key_id}" in " ".join(printed),
          f"the served key hashes to the id and pin `latchkey secrets generate` printed ({printed})")

    key = device = SealingKey()
    op = "registerNewUser"

    def registration(jti, email="sealed@example.com"):
        profile = {"firstName": "Sealed", "lastName": "User", "email": email,
                   "password": seal(settings, PASSWORD, "/userProfile/password", op, jti),
                   "confirmPassword": seal(settings, PASSWORD, "/userProfile/confirmPassword", op, jti),
                   "passcode": seal(settings, PIN, "/userProfile/passcode", op, jti),
                   "confirmPasscode": seal(settings, PIN, "/userProfile/confirmPasscode", op, jti),
                   "mfaAnswers": {q: seal(settings, a, "/userProfile/mfaAnswers/" + token(q), op, jti) for q, a in ANSWERS.items()}}
        return {"userProfile": profile}

    status, registered = call(key, "POST", "/v1/enrollment/users", registration)
    check(status == 201, f"a registration sealed by Python's HPKE is accepted ({status} {registered})")
    status, _ = call(key, "POST", "/v1/auth/login/nonce", lambda jti: {"nonce": registered.get("nonce", "")})
    check(status == 200, "the registration's nonce login links the key")

    login = "loginByUsernamePassword"
    status, answer = call(key, "POST", "/v1/auth/login/password",
                          lambda jti: {"username": "sealed@example.com", "password": seal(settings, PASSWORD, "/password", login, jti)})
    check(status == 200 and "sessionToken" in answer, f"a password sealed by Python's HPKE logs in ({status})")

    status, answer = call(key, "POST", "/v1/auth/login/password", lambda jti: {"username": "sealed@example.com", "password": PASSWORD})
    check(status == 400 and answer["error"].get("id") == "seal_required" and answer["error"].get("field") == "password",
          f"a plain password is refused naming the field ({answer})")

    status, answer = call(key, "POST", "/v1/auth/login/password",
                          lambda jti: {"username": "sealed@example.com", "password": seal(settings, PASSWORD, "/pin", login, jti)})
    check(status == 400 and answer["error"].get("field") == "password", f"a seal made for another field is refused ({answer})")

    captured = {}

    def once(jti):
        captured.setdefault("value", seal(settings, PASSWORD, "/password", login, jti))
        return {"username": "sealed@example.com", "password": captured["value"]}
    status, _ = call(key, "POST", "/v1/auth/login/password", once)
    check(status == 200, "the captured seal logs in once, with its own proof")
    status, answer = call(key, "POST", "/v1/auth/login/password", once)
    check(status == 400 and answer["error"].get("field") == "password", f"sent again with another proof it is refused ({answer})")

    # The app context's deviceTypeId, applicationVersion and paydiantSDKVersion, kept with the device.
    shown = subprocess.run([binary, "users", "show", "sealed@example.com", "--database", f"sqlite:{database}", "--config", config],
                           capture_output=True, text=True).stdout
    check("python\t" in shown and "app=26.11.0.0p" in shown and "sdk=sealed-test/1" in shown,
          f"`latchkey users show` names what the device runs ({shown.splitlines()[-1:]})")
finally:
    server.terminate()
    server.wait()
    log.close()

stored = b""
for name in os.listdir(workdir):
    if name.startswith("sealed.sqlite"):
        stored += open(os.path.join(workdir, name), "rb").read()
logged = open(os.path.join(workdir, "server.log"), "rb").read()
for secret in (PASSWORD, PIN, "Lisbon", "hpke1."):
    check(secret.encode() not in stored, f"the database holds no {secret!r}")
    check(secret.encode() not in logged, f"the server's log (debug) holds no {secret!r}")

print("sealed credentials:", "FAILED" if failures else "passed", f"({len(failures)} failures)")
sys.exit(1 if failures else 0)
