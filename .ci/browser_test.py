#!/usr/bin/env python3
"""Drives the server's web pages in headless Chromium (selenium): email verification (the link's
confirmation page, then its button), a password reset and a PIN reset through the secure portal.
Exits non-zero at the first broken step.

Usage: browser_test.py BASE_URL OUTBOX_FILE
"""
import json
import sys
import urllib.error
import urllib.request
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

import steps
from steps import check

BASE, OUTBOX = sys.argv[1].rstrip("/"), sys.argv[2]
DEVICE = f"browser-{uuid.uuid4().hex[:8]}"
HEADERS = {"X-Application-Signature": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "X-Device-ID": DEVICE,
           "Content-Type": "application/json"}
ANSWERS = {"What was the name of your first pet?": "Rex", "In what city were you born?": "London",
           "What is your mother's maiden name?": "Byron"}


def api(method, path, body=None):
    request = urllib.request.Request(BASE + path, method=method, headers=HEADERS,
                                     data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def link(email, template):
    return steps.courier_data(OUTBOX, email, template, "link")


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,844"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def title(driver):
    return driver.find_element(By.ID, "title").text


def error_text(driver):
    found = driver.find_elements(By.ID, "error")
    return found[0].text if found else ""


def fits_phone(driver):
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def submit(driver):
    """Submits the form and waits until the answer page has replaced this one and finished loading.
    A marker on the old page's window tells the pages apart (element handles go stale mid-navigation)."""
    driver.execute_script("window.latchkeyOldPage = true")
    driver.find_element(By.ID, "submit").click()

    def answered(driver):
        try:
            return driver.execute_script(
                "return window.latchkeyOldPage === undefined && document.readyState === 'complete'"
                " && document.getElementById('title') !== null")
        except WebDriverException:
            return False
    WebDriverWait(driver, 10).until(answered)


def answer_question(driver, answer):
    field = driver.find_element(By.ID, "answer")
    field.clear()
    field.send_keys(answer)
    submit(driver)


def set_credential(driver, new, confirm=None):
    driver.find_element(By.ID, "new").send_keys(new)
    driver.find_element(By.ID, "confirm").send_keys(confirm or new)
    submit(driver)


def right_answer(driver):
    label = driver.find_element(By.CSS_SELECTOR, "label[for=answer]").text
    return ANSWERS[label]


def login(password):
    return api("POST", "/v1/auth/login/password", {"username": EMAIL, "password": password})


EMAIL = f"browser.{uuid.uuid4().hex[:8]}@example.com"
status, body = api("POST", "/v1/enrollment/users", {"userProfile": {
    "firstName": "Ada", "lastName": "Lovelace", "email": EMAIL, "password": "correct-horse-42",
    "confirmPassword": "correct-horse-42", "passcode": "314159", "confirmPasscode": "314159", "mfaAnswers": ANSWERS}})
check(status == 201, "registration over the API")
nonce = body["nonce"]

driver = browser()
try:
    driver.get(link(EMAIL, "email_verification"))
    check(title(driver) == "Verify your email address", "the verification link opens a confirmation page")
    check(EMAIL in driver.find_element(By.ID, "message").text, "the confirmation page names the address")
    check(fits_phone(driver), "the verification page fits a phone screen")
    status, body = login("correct-horse-42")
    check(status == 403 and body.get("error", {}).get("code") == 418,
          "opening the link verifies nothing (mail scanners open links): the login still answers 418")
    check(driver.find_element(By.ID, "submit").text.startswith("Verify"), "the page's button says what it does")
    submit(driver)
    check(title(driver) == "Email verified", "pressing the button shows the 'Email verified' page")
    driver.get(link(EMAIL, "email_verification"))
    check(title(driver) == "This link does not work", "a used verification link is explained")
    check(api("POST", "/v1/auth/login/nonce", {"nonce": nonce})[0] == 200, "the app instance logs in with its nonce")

    check(api("POST", "/v1/enrollment/password-reset", {"email": EMAIL})[0] == 200, "resetForgottenPassword")
    reset = link(EMAIL, "password_reset")
    driver.get(reset)
    check(title(driver) == "Reset your password", "the reset link opens the question page")
    check(fits_phone(driver), "the question page fits a phone screen")
    check(driver.execute_script("return getComputedStyle(document.querySelector('button')).backgroundColor")
          == "rgb(10, 100, 216)", "the stylesheet loads under the page's CSP")
    answer_question(driver, "certainly not")
    check("not correct" in error_text(driver), "a wrong answer is shown inline")
    check(login("correct-horse-42")[0] == 200, "after a wrong answer the password is unchanged")
    answer_question(driver, right_answer(driver))
    check(title(driver) == "Choose a new password", "the right answer leads to the password form")
    set_credential(driver, "short")
    check("at least 8" in error_text(driver), "a password against the rules is refused inline")
    set_credential(driver, "browser-secret-1", "browser-secret-2")
    check(error_text(driver) == "The two entries differ.", "a mismatched confirmation is refused inline")
    set_credential(driver, "browser-secret-1")
    check(title(driver) == "Your password is reset", "the success page")
    check(login("correct-horse-42")[0] == 401, "the old password no longer works")
    check(login("browser-secret-1")[0] == 200, "the new password works")
    driver.get(reset)
    check(title(driver) == "This link does not work", "a used reset link shows an explanation, not a form")
    check(not driver.find_elements(By.TAG_NAME, "form"), "no form on the used link's page")

    check(api("POST", "/v1/enrollment/passcode-reset", {"email": EMAIL})[0] == 200, "resetForgottenPasscode")
    driver.delete_all_cookies()
    driver.get(link(EMAIL, "passcode_reset"))
    check(title(driver) == "Reset your PIN", "the PIN reset link opens the question page")
    answer_question(driver, right_answer(driver))
    check(title(driver) == "Choose a new PIN", "the right answer leads to the PIN form")
    set_credential(driver, "123456")
    check(error_text(driver) != "", "a PIN against the rules is refused inline")
    set_credential(driver, "275804")
    check(title(driver) == "Your PIN is reset", "the PIN success page")
    check(api("POST", "/v1/auth/login/pin", {"pin": "275804"})[0] == 200, "the new PIN logs in")
finally:
    driver.quit()
print(f"browser: {steps.passed} steps passed")
