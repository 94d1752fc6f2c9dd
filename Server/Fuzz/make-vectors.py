#!/usr/bin/env python3
"""Writes the WebAuthn test vectors of the server's verifier tests and the CBOR fuzz corpus.

A software authenticator (keys from `cryptography`, CBOR from python-fido2) makes registrations and
assertions the way a platform authenticator does. Every vector meant to pass is first checked by an
independent relying party, python-fido2's `Fido2Server` (and its `PackedAttestation` for self
attestation); every attack vector is validly signed, so only the one rule it breaks can refuse it.

    pip install fido2
    python3 Server/Fuzz/make-vectors.py   # rewrites Fixtures/webauthn/vectors.json and Fuzz/corpus/cbor/fixture-*
"""
import hashlib
import json
import pathlib
import struct
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from fido2 import cbor
from fido2.attestation import PackedAttestation
from fido2.cose import EdDSA, ES256
from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import AttestationObject, AttestedCredentialData, AuthenticatorData

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests/Fixtures/webauthn"
CORPUS = ROOT / "Fuzz/corpus/cbor"

RP_ID, RP_NAME, ORIGIN = "wallet.example.com", "Example Wallet", "https://wallet.example.com"
UP, UV, BE, BS, AT, ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80
AAGUID = bytes.fromhex("fbfc3007154e4ecc8c0b6e020557d7bd")  # a platform authenticator's model id


def b64(data: bytes) -> str:
    return websafe_encode(data)


def client_data(kind: str, challenge: bytes, origin: str = ORIGIN, **extra) -> bytes:
    fields = {"type": kind, "challenge": b64(challenge), "origin": origin, "crossOrigin": False, **extra}
    return json.dumps(fields, separators=(",", ":")).encode()


class Credential:
    """One credential of the software authenticator."""

    def __init__(self, name, private_key, cose_key, credential_id, user_handle):
        self.name, self.private_key, self.cose_key = name, private_key, cose_key
        self.credential_id, self.user_handle = credential_id, user_handle

    def sign(self, message: bytes) -> bytes:
        if isinstance(self.private_key, ec.EllipticCurvePrivateKey):
            return self.private_key.sign(message, ec.ECDSA(hashes.SHA256()))
        return self.private_key.sign(message)

    def authenticator_data(self, flags, sign_count, rp_id=RP_ID, attested=False, extensions=None) -> bytes:
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", sign_count)
        if attested:
            data += AAGUID + struct.pack(">H", len(self.credential_id)) + self.credential_id + cbor.encode(self.cose_key)
        if extensions is not None:
            data += cbor.encode(extensions)
        return data

    def register(self, challenge, flags, sign_count, fmt, kind="webauthn.create", transports=("internal", "hybrid")):
        data = client_data(kind, challenge)
        auth_data = self.authenticator_data(flags | AT, sign_count, attested=True)
        if fmt == "none":
            statement = {}
        else:
            signature = self.sign(auth_data + hashlib.sha256(data).digest())
            statement = {"alg": self.cose_key[3], "sig": signature}
        attestation = cbor.encode({"fmt": fmt, "attStmt": statement, "authData": auth_data})
        return {"credential": self.name, "challenge": b64(challenge), "credentialId": b64(self.credential_id),
                "clientDataJSON": b64(data), "attestationObject": b64(attestation), "transports": list(transports)}

    def assert_(self, challenge, flags, sign_count, kind="webauthn.get", origin=ORIGIN, rp_id=RP_ID, **extra):
        data = client_data(kind, challenge, origin, **extra)
        auth_data = self.authenticator_data(flags, sign_count, rp_id=rp_id)
        signature = self.sign(auth_data + hashlib.sha256(data).digest())
        return {"credential": self.name, "challenge": b64(challenge), "credentialId": b64(self.credential_id),
                "clientDataJSON": b64(data), "authenticatorData": b64(auth_data), "signature": b64(signature),
                "userHandle": b64(self.user_handle)}


def credentials():
    p256 = ec.derive_private_key(0x1F2E3D4C5B6A79880123456789ABCDEF0011223344556677, ec.SECP256R1())
    ed = ed25519.Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    return [
        Credential("es256", p256, ES256.from_cryptography_key(p256.public_key()), bytes(range(0x10, 0x30)), b"user-1"),
        Credential("eddsa", ed, EdDSA.from_cryptography_key(ed.public_key()), bytes(range(0x40, 0x50)), b"user-2"),
    ]


def fido2_server():
    return Fido2Server({"id": RP_ID, "name": RP_NAME}, verify_origin=lambda origin: origin == ORIGIN)


def state(challenge):
    return {"challenge": b64(challenge), "user_verification": "required"}


def registration_json(vector):
    return {"id": vector["credentialId"], "rawId": vector["credentialId"], "type": "public-key",
            "response": {"clientDataJSON": vector["clientDataJSON"], "attestationObject": vector["attestationObject"]}}


def assertion_json(vector):
    return {"id": vector["credentialId"], "rawId": vector["credentialId"], "type": "public-key",
            "response": {"clientDataJSON": vector["clientDataJSON"], "authenticatorData": vector["authenticatorData"],
                         "signature": vector["signature"], "userHandle": vector["userHandle"]}}


def main():
    es256, eddsa = credentials()
    challenge = bytes(range(100, 132))
    server = fido2_server()
    registrations = {
        # A synced passkey: backup eligible and backed up, no counter, no attestation.
        "es256-none-synced": es256.register(challenge, UP | UV | BE | BS, 0, "none"),
        # A security key: device-bound, counting, self attestation.
        "eddsa-packed-self": eddsa.register(challenge, UP | UV, 1, "packed", transports=("usb",)),
        "es256-packed-self": es256.register(challenge, UP | UV | BE, 0, "packed"),
    }
    for name, vector in registrations.items():
        auth_data = server.register_complete(state(challenge), registration_json(vector))
        attestation = AttestationObject(websafe_decode(vector["attestationObject"]))
        if attestation.fmt == "packed":
            PackedAttestation().verify(attestation.att_stmt, attestation.auth_data,
                                       hashlib.sha256(websafe_decode(vector["clientDataJSON"])).digest())
        assert auth_data.credential_data.credential_id == websafe_decode(vector["credentialId"]), name
    attacks = {
        # Each is validly signed; the comment names the one rule it breaks.
        "registration-uv-not-set": es256.register(challenge, UP | BE | BS, 0, "none"),                    # UV required
        "registration-wrong-type": es256.register(challenge, UP | UV | BE | BS, 0, "none", kind="webauthn.get"),
    }
    for vector in attacks.values():
        try:
            server.register_complete(state(challenge), registration_json(vector))
            raise SystemExit("fido2 accepted an attack registration")
        except ValueError:
            pass
    assertion_challenge = bytes(range(200, 232))
    assertions = {
        "es256-synced": (es256.assert_(assertion_challenge, UP | UV | BE | BS, 0), "es256-none-synced", 0),
        "eddsa-counting": (eddsa.assert_(assertion_challenge, UP | UV, 7), "eddsa-packed-self", 1),
        "assertion-uv-not-set": (es256.assert_(assertion_challenge, UP | BE | BS, 0), "es256-none-synced", 0),
        "assertion-wrong-type": (es256.assert_(assertion_challenge, UP | UV | BE | BS, 0, kind="webauthn.create"),
                                 "es256-none-synced", 0),
        "assertion-wrong-origin": (es256.assert_(assertion_challenge, UP | UV | BE | BS, 0, origin="https://evil.example"),
                                   "es256-none-synced", 0),
        "assertion-wrong-rp": (es256.assert_(assertion_challenge, UP | UV | BE | BS, 0, rp_id="evil.example"),
                               "es256-none-synced", 0),
        "assertion-cross-origin": (es256.assert_(assertion_challenge, UP | UV | BE | BS, 0, topOrigin="https://evil.example"),
                                   "es256-none-synced", 0),
        "assertion-be-cleared": (es256.assert_(assertion_challenge, UP | UV, 0), "es256-none-synced", 0),
    }
    registered = {c.credential_id: c for c in [es256, eddsa]}
    attested = {v["credential"]: AttestedCredentialData.create(AAGUID, c.credential_id, c.cose_key)
                for v in registrations.values() for c in registered.values() if c.name == v["credential"]}
    for name, (vector, _, _) in assertions.items():
        try:
            server.authenticate_complete(state(assertion_challenge), [attested[vector["credential"]]], assertion_json(vector))
            accepted = True
        except ValueError:
            accepted = False
        # fido2 does not check topOrigin or BE; every other attack it refuses too.
        assert accepted == (name in ("es256-synced", "eddsa-counting", "assertion-cross-origin", "assertion-be-cleared")), name
    document = {
        "relyingParty": {"id": RP_ID, "name": RP_NAME, "origins": [ORIGIN]},
        "aaguid": str(uuid.UUID(bytes=AAGUID)).upper(),
        "registrations": {**registrations, **attacks},
        "assertions": {name: {**vector, "registration": registration, "storedSignCount": stored}
                       for name, (vector, registration, stored) in assertions.items()},
    }
    FIXTURES.mkdir(parents=True, exist_ok=True)
    (FIXTURES / "vectors.json").write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    CORPUS.mkdir(parents=True, exist_ok=True)
    for name, vector in registrations.items():
        (CORPUS / f"fixture-{name}.cbor").write_bytes(websafe_decode(vector["attestationObject"]))
    for name in ("es256-synced", "eddsa-counting"):
        (CORPUS / f"fixture-authdata-{name}.bin").write_bytes(
            websafe_decode(assertions[name][0]["authenticatorData"]))
    (CORPUS / "fixture-authdata-extensions.bin").write_bytes(
        es256.authenticator_data(UP | UV | AT | ED, 3, attested=True, extensions={"credProtect": 2}))
    print(f"wrote {FIXTURES / 'vectors.json'} and {CORPUS}")


if __name__ == "__main__":
    main()
