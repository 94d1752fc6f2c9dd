#!/usr/bin/env python3
"""Email through a real mail relay: aiosmtpd (PyPI) with TLS on certificates of a throw-away CA made
here, and `latchkey serve` sending a registration's verification email to it through the smtp
channel. Checks: delivery over STARTTLS, and over implicit TLS with AUTH PLAIN and AUTH LOGIN
(passwords from the environment and from a file); the email parses as MIME with a text and an HTML
part and the expected headers; a relay answering 451 then 250 delivers exactly once; one answering
550 fails the message once, never retried, with the relay's answer in the admin API's courier view;
a relay whose certificate comes from another CA, one without STARTTLS and one that never answers get
nothing; with insecureSkipVerification mail goes out with a warning at start and on each connection.
A relay whose certificate the right CA issued for another host is refused too.
A second message reuses the connection. The password (plain or base64 as AUTH sends it) never shows in the server's log or database. Exits non-zero at the first broken step.

Usage: smtp_test.py LATCHKEY_BINARY WORKDIR [BASE_PORT]
"""
import base64
import datetime
import email
import email.policy
import ipaddress
import json
import logging
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from steps import check

# The implicit-TLS relay requires AUTH without STARTTLS, which aiosmtpd warns about; it is TLS throughout.
warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
# A client that refuses the relay's certificate is an error in aiosmtpd's log; here it is expected.
logging.getLogger("mail.log").setLevel(logging.CRITICAL)

BINARY, WORK = sys.argv[1], sys.argv[2]
RUNNING = []   # the servers started, stopped at exit whatever happens
BASE_PORT = int(sys.argv[3]) if len(sys.argv) > 3 else 18500
APP = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": "smtp-device",
       "Content-Type": "application/json"}
PASSWORD = "relay-pass-7f3a9c1e"


def certificate_authority(name):
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                                key_encipherment=False, data_encipherment=False, key_agreement=False,
                                                encipher_only=False, decipher_only=False), critical=True)
                   .sign(key, hashes.SHA256()))
    return key, certificate


def relay_certificate(ca_key, ca, prefix, host=None):
    """A server certificate for localhost and 127.0.0.1 (or for `host` alone) signed by `ca`;
    answers its TLS context."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    names = [x509.DNSName(host)] if host else [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    certificate = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host or "localhost")]))
                   .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName(names), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                   .sign(ca_key, hashes.SHA256()))
    cert_path, key_path = os.path.join(WORK, f"{prefix}-relay.pem"), os.path.join(WORK, f"{prefix}-relay-key.pem")
    with open(cert_path, "wb") as file:
        file.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as file:
        file.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context


def write_ca(certificate, name):
    path = os.path.join(WORK, name)
    with open(path, "wb") as file:
        file.write(certificate.public_bytes(serialization.Encoding.PEM))
    return path


class Relay:
    """Keeps what the relay received, and refuses by recipient: `reject-…` gets 550 at RCPT,
    `later-…` gets 451 at the end of its first DATA."""

    def __init__(self):
        self.lock = threading.Lock()
        self.delivered = []          # (recipient, raw bytes, authenticated mechanism)
        self.rcpt = {}               # recipient -> RCPT commands seen
        self.deferred = set()
        self.sessions = {}           # recipient -> the connection its message came over (the client's address and port)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        with self.lock:
            self.rcpt[address] = self.rcpt.get(address, 0) + 1
            # The client's port names the connection: unlike id(session), it is not reused while
            # the connection lives, and a new connection gets another.
            self.sessions[address] = session.peer
        if address.startswith("reject-"):
            return "550 5.1.1 <%s>: Recipient address rejected: no such mailbox" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        recipient = envelope.rcpt_tos[0]
        with self.lock:
            if recipient.startswith("later-") and recipient not in self.deferred:
                self.deferred.add(recipient)
                return "451 4.3.0 Greylisted, try again later"
            self.delivered.append((recipient, envelope.original_content or envelope.content,
                                   getattr(session, "auth_mechanism", None), envelope.mail_from))
        return "250 OK queued"

    def received(self, recipient):
        with self.lock:
            return [entry for entry in self.delivered if entry[0] == recipient]


class Authenticator:
    def __init__(self):
        self.mechanisms = []

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = auth_data.login == b"mailer" and auth_data.password == PASSWORD.encode()
        if ok:
            self.mechanisms.append(mechanism)
            session.auth_mechanism = mechanism
        return AuthResult(success=ok, handled=False)


def wait_until(condition, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    return condition()


class Server:
    """`latchkey serve` on SQLite in its own directory with the given smtp settings, its admin API
    on port + 1000 with an admin key, its log kept in a file."""

    def __init__(self, name, port, smtp, env=None):
        self.dir = os.path.join(WORK, name)
        os.makedirs(self.dir, exist_ok=True)
        self.port, self.admin = port, port + 1000
        self.database = f"sqlite:{self.dir}/latchkey.sqlite"
        config = os.path.join(self.dir, "config.yaml")
        with open(config, "w") as file:
            json.dump({"hashing": {"logN": 10, "r": 8, "p": 1}, "rateLimits": {"enabled": False},
                       "secrets": {"pepperFile": f"{self.dir}/pepper", "caKeyFile": f"{self.dir}/ca-key.pem",
                                   "caCertificateFile": f"{self.dir}/ca.pem", "sealKeyFile": f"{self.dir}/seal-key.pem"},
                       "courier": {"pollIntervalMilliseconds": 100, "email": {"channel": "smtp", "smtp": smtp}},
                       "issuer": {"deviceBinding": "optional", "name": "Demo Wallet"},
                       "admin": {"enabled": True, "port": self.admin}}, file)
        environment = {**os.environ, **(env or {}), "LOG_LEVEL": "debug"}
        subprocess.run([BINARY, "secrets", "generate", "--database", self.database, "--config", config], check=True,
                       capture_output=True, env=environment)
        self.key = subprocess.run([BINARY, "operators", "keys", "create", "--name", "ci-smtp", "--role", "admin",
                                   "--database", self.database, "--config", config], check=True, capture_output=True,
                                  text=True, env={**environment, "LOG_LEVEL": "error"}).stdout.strip()
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.process = subprocess.Popen([BINARY, "serve", "--port", str(port), "--database", self.database, "--config", config],
                                        env=environment, stdout=self.log, stderr=subprocess.STDOUT)
        RUNNING.append(self.process)
        ready = wait_until(lambda: self.status(f"http://127.0.0.1:{port}/ready") == 200, 20)
        check(ready, f"latchkey serve ({name}) starts with the smtp channel")

    @staticmethod
    def status(url):
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return None

    def register(self, address):
        profile = {"firstName": "Jürgen", "lastName": "Relay", "email": address, "password": "relay-pass-1",
                   "confirmPassword": "relay-pass-1", "passcode": "314159", "confirmPasscode": "314159",
                   "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                                  "What is your mother's maiden name?": "Byron"}}
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/v1/enrollment/users", method="POST", headers=APP,
                                         data=json.dumps({"userProfile": profile}).encode())
        with urllib.request.urlopen(request, timeout=10) as response:
            check(response.status == 201, f"registration of {address} is accepted")

    def courier(self, recipient):
        """The admin API's courier view of the message to `recipient`."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.admin}/admin/v1/courier/messages?pageSize=200",
                                         headers={"Authorization": f"Bearer {self.key}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            messages = json.loads(response.read())["messages"]
        return next((message for message in messages if message["recipient"] == recipient), None)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        self.log.close()
        with open(os.path.join(self.dir, "server.log")) as file:
            log = file.read()
        database = open(self.database[len("sqlite:"):], "rb").read()
        # As written, in hex, and as AUTH sends it: PLAIN's base64 of "\0user\0password", LOGIN's of the password.
        forms = [PASSWORD, PASSWORD.encode().hex(), base64.b64encode(f"\0mailer\0{PASSWORD}".encode()).decode(),
                 base64.b64encode(PASSWORD.encode()).decode()]
        check(all(form not in log and form.encode() not in database for form in forms),
              "the relay's password, plain or base64 as AUTH sends it, is in neither the server's log nor its database")
        return log


def check_email(raw, recipient, sender):
    message = email.message_from_bytes(raw, policy=email.policy.default)
    check(message["To"] == recipient and message["From"].addresses[0].addr_spec == sender
          and message["From"].addresses[0].display_name == "Demo Wallet – Støttet",
          "the email's To and From (display name RFC 2047 encoded) decode as sent")
    check(message["Message-ID"].endswith("@wallet.example>") and message["Date"].datetime is not None
          and message["MIME-Version"] == "1.0" and message["Subject"], "Message-ID in the sender's domain, Date, MIME-Version, Subject")
    check(message.get_content_type() == "multipart/alternative"
          and [part.get_content_type() for part in message.iter_parts()] == ["text/plain", "text/html"],
          "the email is multipart/alternative: the text part, then the HTML part")
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    check("http://" in text and "<a " in html.lower(), "the text part and the HTML part both carry the verification link")
    check(all(len(line) <= 998 for line in raw.split(b"\r\n")) and b"\n" not in raw.replace(b"\r\n", b""),
          "every line of the email ends in CRLF and is within 998 characters")
    check(not any(byte > 127 for byte in raw), "the email is 7-bit on the wire")


def main():
    ca_key, ca = certificate_authority("Latchkey CI SMTP CA")
    other_key, other = certificate_authority("Some Other CA")
    ca_file, other_file = write_ca(ca, "ca.pem"), write_ca(other, "other-ca.pem")
    context = relay_certificate(ca_key, ca, "trusted")
    password_file = os.path.join(WORK, "smtp-password")
    with open(password_file, "w") as file:
        file.write(PASSWORD + "\n")

    relay, authenticator = Relay(), Authenticator()
    starttls_port, tls_port = BASE_PORT, BASE_PORT + 1
    starttls = Controller(relay, hostname="127.0.0.1", port=starttls_port, tls_context=context, require_starttls=True)
    starttls.start()
    implicit = Controller(relay, hostname="127.0.0.1", port=tls_port, ssl_context=context, server_hostname="localhost",
                          authenticator=authenticator, auth_required=True,
                          # aiosmtpd counts only STARTTLS as TLS; this listener is TLS from the first byte.
                          auth_require_tls=False)
    implicit.start()
    # A certificate from the right CA for another host: the name check must refuse it.
    misnamed_port = BASE_PORT + 4
    misnamed = Controller(relay, hostname="127.0.0.1", port=misnamed_port, require_starttls=True,
                          tls_context=relay_certificate(ca_key, ca, "misnamed", host="mail.other.example"))
    misnamed.start()
    plain_port, silent_port = BASE_PORT + 2, BASE_PORT + 3
    plain = Controller(relay, hostname="127.0.0.1", port=plain_port)
    plain.start()
    silent = socket.create_server(("127.0.0.1", silent_port))   # accepts (the kernel's backlog), never answers
    sender = "no-reply@wallet.example"
    base = {"from": {"address": sender, "name": "Demo Wallet – Støttet"}, "caFile": ca_file,
            "commandTimeoutSeconds": 5, "idleSeconds": 5}
    try:
        # STARTTLS (port 587's way) with the relay's name checked against its certificate.
        server = Server("starttls", BASE_PORT + 10, {**base, "host": "localhost", "port": starttls_port})
        first = "ada@example.com"
        server.register(first)
        received = wait_until(lambda: relay.received(first))
        check(len(received) == 1 and received[0][3] == sender, "the verification email reaches the relay over STARTTLS")
        check_email(received[0][1], first, sender)
        sent = wait_until(lambda: (server.courier(first) or {}).get("state") == "sent" and server.courier(first))
        check(sent and sent["attempts"] == 1, "the admin API shows the message sent at the first attempt")

        # 451 then 250: delivered once, on the second attempt.
        later = "later-bob@example.com"
        server.register(later)
        delivered = wait_until(lambda: (server.courier(later) or {}).get("state") == "sent" and server.courier(later), 15)
        time.sleep(1.5)
        check(delivered and delivered["attempts"] == 2 and len(relay.received(later)) == 1,
              "a relay answering 451 then 250 gets the email exactly once, on the second attempt")
        check(relay.sessions[later] == relay.sessions[first],
              "the next message goes over the same connection (RSET between messages, idleSeconds: 5)")

        # 550: failed once, never retried, the relay's answer for operators to read.
        rejected = "reject-carol@example.com"
        server.register(rejected)
        failed = wait_until(lambda: (server.courier(rejected) or {}).get("state") == "failed" and server.courier(rejected))
        time.sleep(2.5)
        again = server.courier(rejected)
        check(failed and again["attempts"] == 1 and relay.rcpt.get(rejected) == 1 and not relay.received(rejected),
              "a relay answering 550 fails the message at once, and it is never tried again")
        check("550 5.1.1" in again.get("lastError", "") and "Recipient address rejected" in again["lastError"],
              f"the admin API's courier view shows the relay's answer: {again.get('lastError')}")
        server.stop()

        # Implicit TLS (port 465's way) with AUTH PLAIN, the password from the environment, to the relay's IP.
        server = Server("tls-plain", BASE_PORT + 20,
                        {**base, "host": "127.0.0.1", "port": tls_port, "security": "tls", "auth": "plain",
                         "username": "mailer", "password": {"env": "LATCHKEY_CI_SMTP_PASSWORD"}},
                        env={"LATCHKEY_CI_SMTP_PASSWORD": PASSWORD})
        dave = "dave@example.com"
        server.register(dave)
        received = wait_until(lambda: relay.received(dave))
        check(len(received) == 1 and received[0][2] == "PLAIN", "over implicit TLS with AUTH PLAIN, the email arrives")
        check_email(received[0][1], dave, sender)
        server.stop()

        # Implicit TLS with AUTH LOGIN, the password from a file.
        server = Server("tls-login", BASE_PORT + 30,
                        {**base, "host": "localhost", "port": tls_port, "security": "tls", "auth": "login",
                         "username": "mailer", "password": {"file": password_file}})
        erin = "erin@example.com"
        server.register(erin)
        received = wait_until(lambda: relay.received(erin))
        check(len(received) == 1 and received[0][2] == "LOGIN", "over implicit TLS with AUTH LOGIN, the email arrives")
        server.stop()

        # A relay whose certificate another CA signed: refused, nothing delivered, the reason recorded.
        server = Server("other-ca", BASE_PORT + 40, {**base, "host": "localhost", "port": starttls_port, "caFile": other_file})
        frank = "frank@example.com"
        server.register(frank)
        pending = wait_until(lambda: (server.courier(frank) or {}).get("lastError") and server.courier(frank))
        time.sleep(1)
        check(pending and pending["state"] == "pending" and "CERTIFICATE_VERIFY_FAILED" in pending["lastError"] and not relay.received(frank),
              f"a relay whose certificate another CA signed gets nothing: {pending and pending.get('lastError')}")
        server.stop()

        # A relay whose certificate the right CA signed for another host: refused by the name check.
        server = Server("other-host", BASE_PORT + 80, {**base, "host": "localhost", "port": misnamed_port})
        kim = "kim@example.com"
        server.register(kim)
        pending = wait_until(lambda: (server.courier(kim) or {}).get("lastError") and server.courier(kim))
        time.sleep(1)
        check(pending and pending["state"] == "pending" and "failedToValidateHostname" in pending["lastError"]
              and not relay.received(kim) and relay.rcpt.get(kim) is None,
              f"a relay whose certificate names another host gets nothing: {pending and pending.get('lastError')}")
        server.stop()

        # insecureSkipVerification: delivered whatever the certificate, with a warning at start and on each connection.
        unchecked = {key: value for key, value in base.items() if key != "caFile"}
        server = Server("insecure", BASE_PORT + 70, {**unchecked, "host": "localhost", "port": starttls_port,
                                                     "insecureSkipVerification": True, "idleSeconds": 0})
        ivan, judy = "ivan@example.com", "judy@example.com"
        server.register(ivan)
        server.register(judy)
        check(wait_until(lambda: relay.received(ivan) and relay.received(judy)), "with insecureSkipVerification the emails arrive")
        log = server.stop()
        check("insecureSkipVerification is on" in log and log.count("without checking its certificate") >= 2,
              "the server warns at start and on each connection that the relay's certificate is not checked")

        # A relay that offers no STARTTLS gets nothing: no mail goes out in the clear.
        server = Server("no-starttls", BASE_PORT + 50, {**base, "host": "127.0.0.1", "port": plain_port})
        grace = "grace@example.com"
        server.register(grace)
        pending = wait_until(lambda: (server.courier(grace) or {}).get("lastError") and server.courier(grace))
        check(pending and pending["state"] == "pending" and "does not offer STARTTLS" in pending["lastError"]
              and not relay.received(grace), "a relay without STARTTLS is refused and gets nothing")
        server.stop()

        # A relay that accepts the connection and never greets: the attempt ends at the step's timeout.
        server = Server("silent", BASE_PORT + 60, {**base, "host": "127.0.0.1", "port": silent_port, "commandTimeoutSeconds": 1})
        heidi = "heidi@example.com"
        server.register(heidi)
        pending = wait_until(lambda: (server.courier(heidi) or {}).get("lastError") and server.courier(heidi))
        check(pending and pending["state"] == "pending" and pending["lastError"] == "the relay did not answer the greeting in time",
              f"a relay that never answers fails the attempt after commandTimeoutSeconds: {pending and pending.get('lastError')}")
        server.stop()
    finally:
        for process in RUNNING:
            if process.poll() is None:
                process.kill()
        starttls.stop()
        implicit.stop()
        plain.stop()
        misnamed.stop()
        silent.close()
    import steps
    print(f"smtp: {steps.passed} checks passed")


main()
