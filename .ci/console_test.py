#!/usr/bin/env python3
"""The operator console's journey in headless Chromium (selenium), as a support desk lives it: an
operator made with `latchkey operators create` sets up the account from the one-time link (a
password and an authenticator, RFC 6238), signs out and in with a fresh code, finds a wallet
locked out by wrong passwords by the beginning of its address, sees why, unlocks it, ends its
session, and finds both actions in the events page. On a phone-sized window, every field labelled;
a user's page offers only the actions that apply, and at 360 px a 50-character address wraps.

Usage: console_test.py BINARY DATABASE CONFIG PUBLIC_URL ADMIN_URL OUTBOX_FILE
"""
import base64
import hashlib
import hmac
import json
import os
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import steps
from steps import check

BINARY, DATABASE, CONFIG, BASE, ADMIN, OUTBOX = sys.argv[1:7]
EMAIL = f"console-{uuid.uuid4().hex[:8]}@example.com"
OPERATOR = f"desk-{uuid.uuid4().hex[:8]}@example.com"
DEVICE = f"console-{uuid.uuid4().hex[:8]}"
HEADERS = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": DEVICE,
           "Content-Type": "application/json"}
PASSWORD = "a long operator password"


def api(method, path, body=None, session=None, device=DEVICE):
    headers = dict(HEADERS, **{"X-Device-ID": device})
    if session:
        headers["Authorization"] = "Bearer " + session
    request = urllib.request.Request(BASE + path, method=method, headers=headers,
                                     data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def cli(*arguments):
    return subprocess.run([BINARY, "operators", *arguments, "--database", DATABASE, "--config", CONFIG], check=True,
                          capture_output=True, text=True, env={**os.environ, "LOG_LEVEL": "error"}).stdout.strip()


def totp(secret_text, step):
    """RFC 6238 (SHA-1, 6 digits) of the key the setup page shows in base32."""
    key = secret_text.replace(" ", "")
    key = base64.b32decode(key + "=" * (-len(key) % 8))
    mac = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    return f"{(struct.unpack('>I', mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


PHONE_WIDTH = 390


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # Headless Chromium widens a window narrower than 500 px whatever --window-size says, so the
    # phone's width is set on the viewport itself (as a desktop one: a mobile viewport would zoom
    # out to fit whatever overflows, and nothing could be seen to overflow).
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": PHONE_WIDTH, "height": 844, "deviceScaleFactor": 2, "mobile": False})
    driver.implicitly_wait(5)  # a click returns before the next page has loaded
    return driver


def click(driver, element):
    """Clicks and waits for the next page (a form's answer or a link's target)."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 10).until(lambda _: replaced(page))


def replaced(page):
    """Whether the page an element was found on has gone. Chromium answers a question about a node
    of a document being torn down either as a stale element or, while the teardown is under way, as
    an inspector error naming the node as no longer in the document: both mean the page was left.
    Any other inspector error met meanwhile (an execution context destroyed) is asked again until
    the click's wait ends."""
    try:
        page.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        return "does not belong to the document" in (error.msg or "")


def fill(driver, values):
    for name, value in values.items():
        field = driver.find_element(By.ID, name)
        field.clear()
        field.send_keys(value)


def labelled(driver):
    """Every visible field has a label naming it, and the page fits the phone's width."""
    fields = [field for field in driver.find_elements(By.CSS_SELECTOR, "input, select")
              if field.get_attribute("type") != "hidden"]
    unlabelled = [field.get_attribute("id") for field in fields
                  if not driver.find_elements(By.CSS_SELECTOR, f"label[for='{field.get_attribute('id')}']")]
    fits = driver.execute_script(f"return window.innerWidth == {PHONE_WIDTH} && document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")
    return not unlabelled and fits, unlabelled


def main():
    # A wallet locked out by five wrong passwords.
    profile = {"firstName": "Con", "lastName": "Sole", "email": EMAIL, "password": "console-pass-1", "confirmPassword": "console-pass-1",
               "passcode": "314159", "confirmPasscode": "314159",
               "mfaAnswers": {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
                              "What is your mother's maiden name?": "Byron"}}
    status, registered = api("POST", "/v1/enrollment/users", {"userProfile": profile})
    check(status == 201, "a wallet registers")
    driver = browser()
    try:
        driver.get(steps.courier_data(OUTBOX, EMAIL, "email_verification", "link"))
        click(driver, driver.find_element(By.ID, "submit"))
        check(driver.find_element(By.ID, "title").text == "Email verified", "its email is verified")
        check(api("POST", "/v1/auth/login/nonce", {"nonce": registered.get("nonce", "")})[0] == 200,
              "its app logs in with the registration's nonce (the phone is linked)")
        for index in range(5):
            api("POST", "/v1/auth/login/password", {"username": EMAIL, "password": f"wrong-password-{index}"})
        check(api("POST", "/v1/auth/login/password", {"username": EMAIL, "password": "console-pass-1"})[0] == 423,
              "five wrong passwords deactivate it")

        # The operator, from the command line's one-time link.
        link = cli("create", OPERATOR, "--role", "support")
        check(link.startswith(ADMIN + "/console/setup?token="), f"operators create prints the setup link ({link[:60]}…)")
        check(f"{OPERATOR}\tsupport\tawaiting setup" in cli("list"), "operators list shows it awaiting setup")
        driver.get(link)
        check(driver.find_element(By.ID, "title").text == "Set up your console account", "the setup page opens")
        check(driver.find_element(By.ID, "otpauth").get_attribute("href").startswith("otpauth://totp/"), "it offers the otpauth:// URI")
        secret = driver.find_element(By.ID, "secret").text
        ok, missing = labelled(driver)
        check(ok, f"every field of the setup page is labelled and it fits a phone ({missing})")
        step = int(time.time() // 30)
        fill(driver, {"password": PASSWORD, "confirm": PASSWORD, "code": totp(secret, step)})
        click(driver, driver.find_element(By.ID, "submit"))
        check(driver.find_element(By.ID, "title").text == "Dashboard", "the setup signs the operator in, to the dashboard")
        check(len(driver.find_elements(By.CSS_SELECTOR, "figure svg")) >= 8, "the dashboard draws its charts as SVG")
        check(f"{OPERATOR}\tsupport\tactive" in cli("list"), "operators list shows it active")

        click(driver, driver.find_element(By.ID, "signout"))
        check(driver.find_element(By.ID, "title").text == "Sign in", "signing out leads to the sign-in page")
        fill(driver, {"email": OPERATOR, "password": PASSWORD, "code": totp(secret, step)})
        click(driver, driver.find_element(By.ID, "submit"))
        check(driver.find_element(By.ID, "title").text == "Sign in" and driver.find_elements(By.ID, "error"),
              "the code the setup used is refused")
        ok, missing = labelled(driver)
        check(ok, f"every field of the sign-in page is labelled ({missing})")
        fill(driver, {"email": OPERATOR, "password": PASSWORD, "code": totp(secret, step + 1)})
        click(driver, driver.find_element(By.ID, "submit"))
        check(driver.find_element(By.ID, "title").text == "Dashboard", "the next code signs in")

        # Find the wallet, see why, unlock.
        click(driver, driver.find_element(By.LINK_TEXT, "Users"))
        fill(driver, {"q": EMAIL.split("@")[0][:12]})
        click(driver, driver.find_element(By.ID, "search"))
        click(driver, driver.find_element(By.LINK_TEXT, EMAIL))
        check(driver.find_element(By.ID, "title").text == EMAIL, "the search by the address's beginning finds the wallet")
        blocks = driver.find_element(By.ID, "blocks").text
        check("wallet deactivated" in blocks and "5 consecutive failed logins" in blocks, f"its page says why: {blocks}")
        latest = driver.find_element(By.ID, "latest-events").text
        check(latest.count("login.failed") >= 5, f"its page lists its latest events, the failed logins among them: {latest}")
        user_page = driver.current_url
        click(driver, driver.find_element(By.ID, "action-unlock"))
        check(EMAIL in driver.find_element(By.ID, "question").text, "unlocking asks for a confirmation first")
        click(driver, driver.find_element(By.ID, "confirm"))
        check(driver.find_element(By.ID, "notice").text == "Done: unlock.", "the wallet is unlocked")
        check(not driver.find_elements(By.ID, "action-unlock") and driver.find_elements(By.ID, "action-lock"),
              "with nothing locked any more its page offers the lock, not the unlock")
        status, login = api("POST", "/v1/auth/login/password", {"username": EMAIL, "password": "console-pass-1"})
        check(status == 200, "the wallet logs in again")
        session = login["sessionToken"]

        # End that session.
        driver.get(user_page)
        ends = driver.find_elements(By.CSS_SELECTOR, "a[id^='end-']")
        check(len(ends) == 1, "its page lists the live session")
        click(driver, ends[0])
        click(driver, driver.find_element(By.ID, "confirm"))
        check(driver.find_element(By.ID, "notice").text == "Done: end.", "the session is ended")
        check(api("GET", "/v1/auth/session", session=session)[0] == 401, "the app's session is refused")

        # Both actions in the events page.
        user_id = user_page.rstrip("/").split("/")[-1].split("?")[0]
        click(driver, driver.find_element(By.LINK_TEXT, "Events"))
        fill(driver, {"userId": user_id})
        driver.find_element(By.CSS_SELECTOR, "#type option[value='operator.command']").click()
        click(driver, driver.find_element(By.ID, "filter"))
        events = driver.find_element(By.ID, "events").text
        check("command=admin unlockUser" in events and "command=admin endSession" in events and f"operator={OPERATOR}" in events,
              "the events page shows both actions, naming the operator")
        ok, missing = labelled(driver)
        check(ok, f"every field of the events page is labelled and it fits a phone ({missing})")

        # A long address at a phone's width (360 px): the user's page wraps it, nothing is cut off.
        wide = f"wide{uuid.uuid4().hex}ww@example.com"  # 50 characters, the longest the enrollment takes
        status, _ = api("POST", "/v1/enrollment/users", {"userProfile": dict(profile, email=wide)}, device=DEVICE + "-wide")
        check(status == 201, "a wallet with a 50-character address registers")
        # Narrower still for the longest address: the smallest phones' 360 px.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 800, "deviceScaleFactor": 2, "mobile": False})
        driver.get(ADMIN + "/console/users?q=" + urllib.parse.quote(wide))
        click(driver, driver.find_element(By.LINK_TEXT, wide))
        width, scrolled, right = driver.execute_script(
            "return [window.innerWidth, document.scrollingElement.scrollWidth, document.getElementById('email').getBoundingClientRect().right]")
        check(width == 360 and scrolled <= width and right <= width,
              f"at {width} px the user's page fits ({scrolled} px wide) and its address wraps (its right edge at {right:.0f} px)")
        check(driver.find_elements(By.ID, "action-resendVerification") and not driver.find_elements(By.ID, "action-unlock"),
              "an unverified wallet is offered the verification email, not an unlock")

        # A reset link replaces the authenticator.
        again = cli("reset", OPERATOR)
        check(again.startswith(ADMIN + "/console/setup?token=") and again != link, "operators reset prints a new setup link")
        driver.get(ADMIN + "/console")
        check(driver.find_element(By.ID, "title").text == "Sign in", "the reset ended the operator's sign-in")
    except Exception:
        print(driver.current_url, driver.page_source[:3000], file=sys.stderr)
        raise
    finally:
        driver.quit()
    print(f"console: {steps.passed} steps passed")


main()
