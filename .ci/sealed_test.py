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
"""
import base64, json, os, subprocess, sys, time, urllib.error, urllib.request, uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "docs", "examples"))
from dpop_login import APP, DeviceKey, b64  # noqa: E402
from cryptography.hazmat.primitives import hpke  # noqa: E402
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


def seal(settings, value, pointer, operation, jti):
    key_thumbprint = device.thumbprint  # the seal is bound to the key that signs the proof
    key = settings["keys"][0]
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), base64.b64decode(key["publicKey"]))
    info = "\0".join(["latchkey credential seal v1", pointer, operation, key_thumbprint, jti]).encode()
    sealed = SUITE.encrypt(value.encode(), public, info=info)
    return f"hpke1.{key['keyId']}.{b64(sealed[:65])}.{b64(sealed[65:])}"


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

    key = device = SealingKey()
    op = "registerNewUser"

    def registration(jti, email="sealed@example.com"):
        profile = {"firstName": "Sealed", "lastName": "User", "email": email,
                   "password": seal(settings, PASSWORD, "/userProfile/password", op, jti),
                   "confirmPassword": seal(settings, PASSWORD, "/userProfile/confirmPassword", op, jti),
                   "passcode": seal(settings, PIN, "/userProfile/passcode", op, jti),
                   "confirmPasscode": seal(settings, PIN, "/userProfile/confirmPasscode", op, jti),
                   "mfaAnswers": {q: seal(settings, a, "/userProfile/mfaAnswers/" + q, op, jti) for q, a in ANSWERS.items()}}
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
