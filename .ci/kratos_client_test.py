#!/usr/bin/env python3
"""Runs the official Ory Kratos Python client (PyPI `ory-kratos-client`) against Latchkey:
a native registration flow, phone verification through Latchkey's endpoints, the registration,
whoami, the device key registration with a DPoP proof (the limited session before it, the bound
session and the certificate's status after it), a login by phone, logout. Exits non-zero at the
first broken step. The server runs with `issuer.deviceBinding: required`, the default.

Usage: kratos_client_test.py BASE_URL OUTBOX_FILE
"""
import json
import os
import random
import sys
import urllib.error
import urllib.request

import ory_kratos_client
from ory_kratos_client.api.frontend_api import FrontendApi
from ory_kratos_client.exceptions import ApiException
from ory_kratos_client.models.perform_native_logout_body import PerformNativeLogoutBody
from ory_kratos_client.models.update_login_flow_body import UpdateLoginFlowBody
from ory_kratos_client.models.update_login_flow_with_password_method import UpdateLoginFlowWithPasswordMethod
from ory_kratos_client.models.update_registration_flow_body import UpdateRegistrationFlowBody
from ory_kratos_client.models.update_registration_flow_with_password_method import UpdateRegistrationFlowWithPasswordMethod

import steps
from steps import check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "examples"))
from dpop_login import APP, DeviceKey  # noqa: E402  (the documented example's proof signing)
from cryptography.hazmat.primitives import serialization  # noqa: E402

BASE, OUTBOX = sys.argv[1].rstrip("/"), sys.argv[2]
PHONE = "+4366" + "".join(random.choice("0123456789") for _ in range(8))
PASSWORD = "kratos-client-secret-1"


def phone_call(method, body):
    request = urllib.request.Request(BASE + "/identity/verification/flow/phone", method=method,
                                     data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return response.status, response.read()


def raw(method, path, headers, body=None):
    """One request; answers the status and the JSON body, errors included."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, method=method, data=data,
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def code_for(phone):
    return steps.courier_data(OUTBOX, phone, "otp", "code")


frontend = FrontendApi(ory_kratos_client.ApiClient(ory_kratos_client.Configuration(host=BASE + "/a")))

flow = frontend.create_native_registration_flow()
check(flow.type == "api" and flow.ui.method == "POST", "create_native_registration_flow parses as a RegistrationFlow")
check(any(node.attributes.actual_instance.name == "traits.phone" for node in flow.ui.nodes), "the flow has a traits.phone node")

status, _ = phone_call("POST", {"phoneNumber": PHONE, "phoneType": "PRIMARY", "flowId": flow.id, "flowType": "REGISTRATION"})
check(status == 201, "the code is sent (201)")
status, body = phone_call("PATCH", {"phoneType": "PRIMARY", "flowId": flow.id, "otp": code_for(PHONE), "flowType": "REGISTRATION"})
check(status == 200 and json.loads(body) == {"message": "Phone verified successfully"}, "the phone is verified")

method = UpdateRegistrationFlowWithPasswordMethod(
    method="password", password=PASSWORD, traits={"name": {"first": "Kratos", "last": "Client"}, "phone": PHONE})
registered = frontend.update_registration_flow(flow=flow.id, update_registration_flow_body=UpdateRegistrationFlowBody(method))
check(registered.session_token and registered.identity.id, "update_registration_flow parses as a SuccessfulNativeRegistration")
check(registered.identity.traits["phone"] == PHONE, "the identity's traits carry the phone")

session = frontend.to_session(x_session_token=registered.session_token)
check(session.active and session.identity.id == registered.identity.id, "to_session (whoami) answers the identity")

token = registered.session_token
wallet = {"X-Application-Signature": APP, "X-Device-ID": "kratos-client"}
status, early = raw("GET", "/v1/profile", {**wallet, "Authorization": "Bearer " + token})
check(status == 401 and early["error"]["id"] == "device_key_required", "the sign-up's session is limited until its key is registered")
key = DeviceKey()
pem = key.key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
path = "/identity/pki/client/certificates"
status, _ = raw("PUT", path, {"X-Session-Token": token}, {"publicKey": pem})
check(status == 401, "the key registration needs a DPoP proof")
status, issued = raw("PUT", path, {"X-Session-Token": token, "DPoP": key.proof("PUT", BASE + path, token)}, {"publicKey": pem})
check(status == 200 and issued["tokenType"] == "DPoP", "the key registration with a proof by the key binds the session")
status, profile = raw("GET", "/v1/profile", {**wallet, "Authorization": "DPoP " + token,
                                             "DPoP": key.proof("GET", BASE + "/v1/profile", token)})
check(status == 200 and profile["username"] == PHONE, "the bound session works on /v1 with proofs by the key")
status, copied = raw("GET", "/v1/profile", {**wallet, "Authorization": "Bearer " + token})
check(status == 401, "a copy of the bound token without the key is refused")
status, state = raw("GET", path + "/" + issued["serialNumber"], {})
check(status == 200 and state["status"] == "good", "relying parties read the certificate's status")

try:
    frontend.update_registration_flow(flow=flow.id, update_registration_flow_body=UpdateRegistrationFlowBody(method))
    check(False, "a used flow is refused")
except ApiException as error:
    check(error.status == 410, "a used flow is refused with 410")

login_flow = frontend.create_native_login_flow()
check(login_flow.type == "api", "create_native_login_flow parses as a LoginFlow")
login = frontend.update_login_flow(flow=login_flow.id, update_login_flow_body=UpdateLoginFlowBody(
    UpdateLoginFlowWithPasswordMethod(method="password", identifier=PHONE, password=PASSWORD)))
check(login.session.identity.id == registered.identity.id, "update_login_flow by phone parses as a SuccessfulNativeLogin")

frontend.perform_native_logout(PerformNativeLogoutBody(session_token=login.session_token))
try:
    frontend.to_session(x_session_token=login.session_token)
    check(False, "a logged-out session is refused")
except ApiException as error:
    check(error.status == 401, "perform_native_logout ends the session (whoami 401)")
print(f"kratos client: {steps.passed} steps passed")
