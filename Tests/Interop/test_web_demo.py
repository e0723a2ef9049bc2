"""`passkeydemo --web` in Debian's headless Chromium with the passkeyd extension and its native
host, against a real passkeyd: the shop's six scenarios on http://localhost:PORT and the courier
app on http://courier.localhost:PORT, each driven as a person would (type, click, pick in the
extension's chooser or AutoFill suggestions) and ending on the success page with the server's
verification, or on the exact sentence the page shows.

With PASSKEYDEMO_SCREENSHOTS=DIR (a folder, relative to the repository) the tests also save the
screenshots docs/images holds (`make screenshots`).
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from browser_driver import BrowserError, PageError, chromium_path
from browser_flows import Session, chooser_open, enter_pin, new_name, pick, pick_suggestion
from passkeyd_hid import REPO
from passkeyd_pin import passkeyctl, set_pin

PASSKEYDEMO = os.environ.get("PASSKEYDEMO_BIN", str(REPO / ".build" / "debug" / "passkeydemo"))
SHOTS = os.environ.get("PASSKEYDEMO_SCREENSHOTS")
TIMEOUT = 60.0

# The courier app's sentences (Sources/passkeydemo/Courier.swift, Courier.Sentence).
UNREACHABLE = "Unable to connect. Please check your internet connection and try again."
NOT_RECOGNIZED = "Passkey not recognized. Please try again or create a new account."
SUPPORT = "Still not working? Wait a few minutes and try again, or contact support at support@courier.passkeyd.test."
OFFLINE = "You are offline: your account opens read-only until the connection is back."
CANCELLED = "That was cancelled."
# The shop's (Sources/passkeydemo/Web/Assets/demo.js and ShopRoutes.swift).
EXCLUDED = "This username already has a passkey on this device (InvalidStateError): sign in with it instead."
NO_LOCAL_PASSKEY = "No passkey for this site on this device: sign in with your password."
WRONG_PASSWORD = "That username and password do not match an account."
CAROL = ("carol@shop.passkeyd.test", "correct horse battery staple")

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebDemo:
    """`passkeydemo --web` on a port of its own, stopped with SIGTERM (then killed) by `stop()`."""

    def __init__(self, state: str, port: int | None = None, *flags: str):
        self.state = state
        for attempt in range(5):  # a port picked free can be taken before the server binds it
            self.port = port or free_port()
            self.process = subprocess.Popen(
                [PASSKEYDEMO, "--web", "--port", str(self.port), "--state-dir", state, *flags],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=lambda: [lines.put(line) for line in self.process.stdout], daemon=True).start()
            try:
                line = lines.get(timeout=TIMEOUT)
            except queue.Empty:
                line = ""
            if line.startswith("passkeydemo web:"):
                self.announced = line.strip()
                return
            self.stop()
            if port is not None and attempt >= 2:
                break
        raise RuntimeError(f"passkeydemo --web did not start: {self.process.stderr.read()}")

    def shop(self, path: str = "/") -> str:
        return f"http://localhost:{self.port}{path}"

    def courier(self, path: str = "/") -> str:
        return f"http://courier.localhost:{self.port}{path}"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


def ctl(daemon, *args: str, pin: str | None = None) -> subprocess.CompletedProcess:
    done = passkeyctl(daemon.socket, *args, pin=pin)
    assert done.returncode == 0, f"passkeyctl {' '.join(args)}: {done.stderr}"
    return done


def passkeys_of(daemon, rp: str, pin: str | None = None) -> dict[str, str]:
    """{user name: credential id (base64url)} of `rp`'s passkeys in passkeyd."""
    listed = json.loads(ctl(daemon, "--json", "list", "--rp", rp, pin=pin).stdout)
    found = {}
    for party in listed["relyingParties"]:
        for credential in party["credentials"]:
            found[credential["userName"]] = credential["credentialId"]
    return found


def settle(page, expression: str, timeout: float = TIMEOUT):
    """`expression`'s truthy value, polled across navigations (an evaluation that lands while
    the document changes is retried, not failed)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = page.evaluate(f"document.readyState === 'complete' && ({expression})")
        except (PageError, BrowserError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page never satisfied {expression}: {page.evaluate('document.body.innerText')!r}")
        time.sleep(0.05)


def text(page, element_id: str) -> str:
    return page.evaluate(f"document.getElementById({json.dumps(element_id)}).textContent")


def fill(page, **values: str) -> None:
    """Types into the page's fields (as a person, or the password manager, fills them in)."""
    for field, value in values.items():
        page.evaluate(f"""(() => {{ const f = document.getElementById({json.dumps(field)});
            f.value = {json.dumps(value)}; f.dispatchEvent(new Event('input', {{bubbles: true}})); return true; }})()""")


def click(page, element_id: str) -> None:
    page.evaluate(f"document.getElementById({json.dumps(element_id)}).click(), true")


def status_is(page, sentence: str) -> None:
    settle(page, f"document.getElementById('status').textContent === {json.dumps(sentence)}")


def screenshot(page, name: str) -> None:
    if not SHOTS:
        return
    folder = Path(SHOTS) if Path(SHOTS).is_absolute() else REPO / SHOTS
    folder.mkdir(parents=True, exist_ok=True)
    metrics = {"width": 900, "height": 600, "deviceScaleFactor": 1, "mobile": False}
    page.send("Emulation.setDeviceMetricsOverride", metrics)
    # As tall as the page, so the picture shows all of it.
    height = page.evaluate("document.fonts.ready.then(() => document.documentElement.scrollHeight)")
    page.send("Emulation.setDeviceMetricsOverride", {**metrics, "height": max(metrics["height"], height)})
    shot = page.send("Page.captureScreenshot", {"format": "png"})
    page.send("Emulation.clearDeviceMetricsOverride")
    (folder / name).write_bytes(base64.b64decode(shot["data"]))


def assert_success_page(page, daemon, name: str, how: str) -> None:
    """The success page, with what the server verified; a passkey is the one passkeyd holds."""
    settle(page, "location.pathname === '/signed-in' && !!document.getElementById('verified')")
    assert text(page, "verified") == "✓ Verified by the server"
    assert text(page, "user-username") == name
    assert text(page, "user-how") == how
    if "passkey" in how:
        assert text(page, "user-passkey") == passkeys_of(daemon, "localhost")[name]


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def session(daemon):
    s = Session("chromium", daemon.socket)
    yield s
    s.close()


@pytest.fixture(scope="module")
def web():
    state = tempfile.mkdtemp(prefix="passkeydemo-web-")
    demo = WebDemo(state)
    yield demo
    demo.stop()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture
def page(session):
    p = session.browser.new_page()
    yield p
    p.close()


def register(page, web, daemon, name: str) -> None:
    page.navigate(web.shop("/scenario/registration"))
    fill(page, username=name)
    click(page, "action")
    assert_success_page(page, daemon, name, "registered a passkey")


def sign_out(page) -> None:
    click(page, "action")
    settle(page, "document.body.dataset.page === 'features'")


# -- the shop's six scenarios ----------------------------------------------------------------


def test_the_server_answers_its_two_hosts_only(web):
    assert web.announced == (f"passkeydemo web: the shop at http://localhost:{web.port}/ and the courier app at "
                             f"http://courier.localhost:{web.port}/")
    with socket.create_connection(("127.0.0.1", web.port), timeout=30) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: rebound.example:80\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := raw.recv(4096):
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 421"), reply[:100]


def api(web, host: str, path: str, body: bytes, kind: str = "application/json") -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    try:
        connection.request("POST", path, body=body, headers={"Host": f"{host}:{web.port}", "Content-Type": kind})
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        connection.close()


def test_bad_requests_get_a_precise_answer_and_the_server_keeps_serving(web):
    assert api(web, "localhost", "/api/register/options", b'{"username":"x"}', "text/plain") == \
        (415, {"error": "bad-media-type", "message": "Send the request body as application/json."})
    assert api(web, "localhost", "/api/sign-in", b'{"credential": 5}') == \
        (400, {"error": "bad-request", "message": "The request body is not the JSON this endpoint takes."})
    assert api(web, "courier.localhost", "/api/account/options", b'{"username": "  "}') == \
        (400, {"error": "bad-username", "message": "Type a username of 1 to 64 characters."})
    assert api(web, "localhost", "/api/password", json.dumps({"username": CAROL[0], "password": "nope"}).encode()) == \
        (401, {"error": "wrong-password", "message": WRONG_PASSWORD})
    status, options = api(web, "localhost", "/api/sign-in/options", b"{}")
    assert status == 200 and options["rpId"] == "localhost" and len(options["challenge"]) >= 43


def test_the_feature_list_opens_every_scenario_and_the_courier_app(page, web):
    page.navigate(web.shop("/"))
    links = page.evaluate("[...document.querySelectorAll('.features a')].map((a) => [a.pathname, a.querySelector('strong').textContent])")
    assert links == [["/scenario/registration", "Registration"], ["/scenario/passkey-only", "Passkey-only sign-in"],
                     ["/scenario/passkey-or-password", "Passkey or password"], ["/scenario/autofill", "AutoFill"],
                     ["/scenario/immediate", "Immediate"], ["/scenario/autofill-hybrid", "AutoFill hybrid"]]
    assert page.evaluate("document.getElementById('courier-link').href") == web.courier("/")
    screenshot(page, "web-feature-list.png")
    # Every scenario page has the same frame: an input area, one action button, a status line.
    for path, _ in links:
        page.navigate(web.shop(path))
        assert page.evaluate("!!document.querySelector('form.inputs') && !!document.getElementById('action')"
                             " && !!document.getElementById('status')"), path


def test_registration_ends_verified_and_a_second_passkey_is_excluded(page, web, daemon):
    name = "alice"  # the only test that registers this name, on this module's fresh passkeyd
    page.navigate(web.shop("/scenario/registration"))
    fill(page, username=name)
    screenshot(page, "web-scenario-registration.png")
    click(page, "action")
    assert_success_page(page, daemon, name, "registered a passkey")
    assert text(page, "user-algorithm") == "es256 (COSE -7)"
    screenshot(page, "web-signed-in.png")
    sign_out(page)
    page.send("Page.navigate", {"url": web.shop("/signed-in")})
    settle(page, "location.pathname === '/' && document.body.dataset.page === 'features'")  # signed out: the list

    # excludeCredentials names the passkey alice has: passkeyd refuses a second (CTAP2_ERR_CREDENTIAL_EXCLUDED).
    page.navigate(web.shop("/scenario/registration"))
    fill(page, username=name)
    click(page, "action")
    status_is(page, EXCLUDED)
    assert list(passkeys_of(daemon, "localhost")).count(name) == 1


def test_passkey_only_signs_in_the_account_picked_in_the_chooser(page, web, daemon):
    first, second = new_name("first"), new_name("second")
    for name in (first, second):
        register(page, web, daemon, name)
        sign_out(page)
    signed_in = []
    for index in (1, 0):
        page.navigate(web.shop("/scenario/passkey-only"))
        click(page, "action")
        pick(page, index)
        settle(page, "location.pathname === '/signed-in'")
        name = text(page, "user-username")
        assert_success_page(page, daemon, name, "signed in with a passkey")
        signed_in.append(name)
        sign_out(page)
    assert len(set(signed_in)) == 2, "each chooser entry is its own account"

    # Escape in the chooser: NotAllowedError, said on the page; nothing signed in.
    page.navigate(web.shop("/scenario/passkey-only"))
    click(page, "action")
    window, _ = chooser_open(page)
    window.press("Escape", closes=True)
    settle(page, "document.getElementById('status').textContent.startsWith('Cancelled or not allowed (NotAllowedError)')")


def test_passkey_or_password_takes_either(page, web, daemon):
    for name in (new_name("either"), new_name("or")):  # two, so passkeyd asks which
        register(page, web, daemon, name)
        sign_out(page)
    page.navigate(web.shop("/scenario/passkey-or-password"))
    fill(page, username=CAROL[0], password="wrong")
    click(page, "action")
    status_is(page, WRONG_PASSWORD)
    fill(page, password=CAROL[1])
    click(page, "action")
    assert_success_page(page, daemon, CAROL[0], "signed in with a saved password")
    sign_out(page)
    # No password: the one request for a passkey or a password; passkeyd's chooser answers it.
    page.navigate(web.shop("/scenario/passkey-or-password"))
    click(page, "action")
    pick(page, 0)
    settle(page, "location.pathname === '/signed-in'")
    assert_success_page(page, daemon, text(page, "user-username"), "signed in with a passkey")


def conditional_pending(page) -> None:
    settle(page, "document.body.dataset.conditional === 'pending'")


def sign_in_with_a_suggestion(page, daemon) -> None:
    """On an AutoFill page: focus the field, pick the first suggestion (Enter), end signed in."""
    conditional_pending(page)
    page.evaluate("document.getElementById('username').focus(), true")
    # The suggestions come up under the focused field on the person's ArrowDown (a script's
    # focus() opens nothing; the page cannot read them: a closed shadow root).
    pick_suggestion(page, 0)
    settle(page, "location.pathname === '/signed-in'")
    assert_success_page(page, daemon, text(page, "user-username"), "signed in with a passkey")


def test_autofill_signs_in_through_the_conditional_request(page, web, daemon):
    register(page, web, daemon, new_name("fill"))
    sign_out(page)
    page.navigate(web.shop("/scenario/autofill"))
    assert page.evaluate("document.getElementById('username').autocomplete") == "username webauthn"
    sign_in_with_a_suggestion(page, daemon)


def test_leaving_an_autofill_page_aborts_its_request(page, web, daemon):
    register(page, web, daemon, new_name("leave"))
    sign_out(page)
    page.navigate(web.shop("/scenario/autofill"))
    conditional_pending(page)
    page.evaluate("sessionStorage.removeItem('passkeydemo.conditional'), true")
    page.navigate(web.shop("/"))
    # The request ended with AbortError when the page went away (pagehide → AbortController).
    assert page.evaluate("sessionStorage.getItem('passkeydemo.conditional')") == "AbortError"
    # Nothing was left waiting: the next AutoFill page offers its suggestions and signs in.
    page.navigate(web.shop("/scenario/autofill-hybrid"))
    sign_in_with_a_suggestion(page, daemon)


def test_immediate_asks_for_the_password_when_no_passkey_is_here(page, web, daemon):
    if passkeys_of(daemon, "localhost"):
        ctl(daemon, "delete", "--rp", "localhost", "--yes")
    page.navigate(web.shop("/scenario/immediate"))
    assert page.evaluate("document.getElementById('password').closest('label').hidden")
    began = time.monotonic()
    click(page, "action")
    status_is(page, NO_LOCAL_PASSKEY)
    assert time.monotonic() - began < 10, "immediate mediation does not wait for a person"
    assert page.evaluate("!document.getElementById('password').closest('label').hidden")
    fill(page, username=CAROL[0], password=CAROL[1])
    click(page, "action")
    assert_success_page(page, daemon, CAROL[0], "signed in with a saved password")
    sign_out(page)
    # With a passkey here, the same button signs in at once.
    name = new_name("here")
    register(page, web, daemon, name)
    sign_out(page)
    page.navigate(web.shop("/scenario/immediate"))
    click(page, "action")
    assert_success_page(page, daemon, name, "signed in with a passkey")


def test_autofill_hybrid_button_cancels_autofill_before_the_modal_request(page, web, daemon):
    for name in (new_name("h1"), new_name("h2")):
        register(page, web, daemon, name)
        sign_out(page)
    page.navigate(web.shop("/scenario/autofill-hybrid"))
    conditional_pending(page)
    click(page, "action")
    # The modal chooser comes up only after AutoFill's request ended with AbortError.
    window, _ = chooser_open(page)
    assert page.evaluate("document.body.dataset.conditional") == "AbortError"
    window.press("Enter", closes=True)
    settle(page, "location.pathname === '/signed-in'")
    assert_success_page(page, daemon, text(page, "user-username"), "signed in with a passkey")


def test_autofill_hybrid_sends_an_autofilled_password_straight_to_the_server(page, web, daemon):
    page.navigate(web.shop("/scenario/autofill-hybrid"))
    conditional_pending(page)
    fill(page, username=CAROL[0], password=CAROL[1])
    click(page, "action")
    assert_success_page(page, daemon, CAROL[0], "signed in with a saved password")


# -- the courier app -------------------------------------------------------------------------


def toggle_offline(page) -> None:
    """Flips the offline switch and waits until the app has started again behind it."""
    starts = page.evaluate("Number(document.body.dataset.starts)")
    click(page, "offline")
    settle(page, f"Number(document.body.dataset.starts) > {starts}")


def courier_screen(page, screen: str) -> None:
    settle(page, f"!document.getElementById({json.dumps(screen)}).hidden")


def create_account(page, web, name: str) -> None:
    page.navigate(web.courier("/"))
    settle(page, "!document.getElementById('welcome').hidden || !document.getElementById('home').hidden")
    if page.evaluate("!document.getElementById('home').hidden"):  # signed in by an earlier test
        click(page, "sign-out")
        courier_screen(page, "welcome")
    fill(page, username=name)
    click(page, "create")
    settle(page, f"document.getElementById('heading').textContent === {json.dumps('✓ Account created: signed in as ' + name)}")


def courier_sign_out(page, name: str) -> None:
    click(page, "sign-out")
    status_is(page, f"Signed out of {name}.")
    courier_screen(page, "welcome")


def test_courier_welcome_create_account_taken_name_and_sign_out(page, web):
    page.navigate(web.courier("/"))
    courier_screen(page, "welcome")
    assert text(page, "create") == "Create Account with Passkey" and text(page, "sign-in") == "Sign In with Passkey"
    screenshot(page, "web-courier-welcome.png")
    name = new_name("courier")
    create_account(page, web, name)
    assert text(page, "deliveries") == f"Deliveries for {name}: none on the way."
    courier_sign_out(page, name)
    fill(page, username=name)
    click(page, "create")
    status_is(page, f"The username {name} is taken. Choose another.")


def test_courier_loading_state_and_retry_after_cancel(page, web):
    names = [new_name("c1"), new_name("c2")]
    for name in names:
        create_account(page, web, name)
        courier_sign_out(page, name)
    click(page, "sign-in")
    window, _ = chooser_open(page)
    # While the request runs: the loading indicator, every button disabled.
    assert page.evaluate("!document.getElementById('loading').hidden && "
                         "['create', 'sign-in', 'sign-out', 'retry'].every((id) => document.getElementById(id).disabled)")
    window.press("Escape", closes=True)
    status_is(page, CANCELLED)
    assert page.evaluate("!document.getElementById('retry').hidden && document.getElementById('support').hidden")
    assert page.evaluate("document.getElementById('loading').hidden && !document.getElementById('sign-in').disabled")
    click(page, "retry")
    pick(page, 0)
    settle(page, "document.getElementById('heading').textContent.startsWith('✓ Signed in as ')")
    assert text(page, "heading").removeprefix("✓ Signed in as ") in names


def test_courier_unrecognized_passkey_three_times_brings_the_support_advice(page, web, daemon):
    for name in (new_name("fault"), new_name("f2")):  # two, so the chooser asks each time
        create_account(page, web, name)
        courier_sign_out(page, name)
    # passkeyd signs every assertion with a bogus signature until cleared: the server rejects each.
    ctl(daemon, "fault", "set", "bogus-signature", "--always")
    try:
        click(page, "sign-in")
        for attempt in range(3):
            pick(page, 0)
            status_is(page, NOT_RECOGNIZED)
            support_shown = page.evaluate("!document.getElementById('support').hidden")
            assert support_shown == (attempt == 2), attempt
            if attempt < 2:
                click(page, "retry")
        assert text(page, "support") == SUPPORT
    finally:
        ctl(daemon, "fault", "clear")
    click(page, "retry")  # the fault cleared: this one verifies
    pick(page, 0)
    settle(page, "document.getElementById('heading').textContent.startsWith('✓ Signed in as ')")
    assert page.evaluate("document.getElementById('support').hidden")


def test_courier_offline_switch_makes_the_server_unreachable(page, web):
    name = new_name("offline")
    create_account(page, web, name)
    toggle_offline(page)
    courier_screen(page, "home")
    status_is(page, f"{UNREACHABLE} {OFFLINE}")
    assert text(page, "deliveries") == "Deliveries: not shown while offline."
    page.navigate(web.courier("/"))  # the app opened again while offline: read-only
    status_is(page, f"{UNREACHABLE} {OFFLINE}")
    assert text(page, "heading") == f"✓ Signed in as {name}" and page.evaluate("document.getElementById('offline').checked")
    click(page, "sign-out")
    status_is(page, UNREACHABLE)
    toggle_offline(page)  # back online: the server checks the session again
    settle(page, f"document.getElementById('heading').textContent === {json.dumps('✓ Welcome back, ' + name + ' (session restored, checked by the server)')}")
    courier_sign_out(page, name)
    toggle_offline(page)  # no saved session: the app starts on Welcome without asking the server
    assert page.evaluate("document.getElementById('offline').checked && !document.getElementById('welcome').hidden")
    fill(page, username=new_name("nobody"))
    for button in ("create", "sign-in"):
        click(page, button)
        status_is(page, UNREACHABLE)
    toggle_offline(page)
    courier_screen(page, "welcome")


def test_courier_session_survives_a_restart_of_the_server(session, daemon, tmp_path):
    demo = WebDemo(str(tmp_path))
    page = session.browser.new_page()
    try:
        name = new_name("restore")
        create_account(page, demo, name)
        demo.stop()
        demo = WebDemo(str(tmp_path), demo.port)
        page.navigate(demo.courier("/"))
        settle(page, f"document.getElementById('heading').textContent === {json.dumps('✓ Welcome back, ' + name + ' (session restored, checked by the server)')}")
        # The server forgot its sessions (its database gone): the saved one has ended.
        demo.stop()
        (tmp_path / "courier-server.json").unlink()
        demo = WebDemo(str(tmp_path), demo.port)
        page.navigate(demo.courier("/"))
        status_is(page, "Your session has ended. Sign in again.")
        courier_screen(page, "welcome")
    finally:
        page.close()
        demo.stop()


def test_courier_failed_biometric_check_with_a_pin_set_asks_the_pin_and_creates_the_account(daemon_factory, web):
    """`passkeyd --uv deny` with a PIN: the built-in check fails, so the browser asks for the PIN
    (the PIN entry in the extension's window, typed into as a person types), and the account is created; the
    passkey is in passkeyd."""
    daemon = daemon_factory("--presence", "auto", "--uv", "deny")
    set_pin(daemon.socket, "4711")
    denied = Session("chromium", daemon.socket)
    try:
        page = denied.browser.new_page()
        name = new_name("ivy")
        page.navigate(web.courier("/"))
        courier_screen(page, "welcome")
        fill(page, username=name)
        click(page, "create")
        enter_pin(page, "4711")
        settle(page, f"document.getElementById('heading').textContent === {json.dumps('✓ Account created: signed in as ' + name)}")
        assert list(passkeys_of(daemon, "courier.localhost", pin="4711")) == [name]
    finally:
        denied.close()
