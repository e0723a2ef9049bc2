"""The web flows both real-browser suites run, and the relying party they run against.

`RelyingParty` is a web site on http://localhost (a secure context) served by Python's
http.server in the test process: pages that call navigator.credentials, and JSON endpoints
that make options and verify responses with py_webauthn, as a real server would. Each flow
returns what the page received and what the server verified, and asserts both.

`Session` starts one browser (Chromium or Firefox ESR, browser_driver) with the extension
(integrations/browser/extension) and the native host installed by `passkeyctl browser install`,
against a real passkeyd.
"""

from __future__ import annotations

import base64
import http.server
import json
import os
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import webauthn
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from browser_driver import Chromium, Firefox, Page, poll
from passkeyd_pin import passkeyctl_binary

HERE = Path(__file__).resolve().parent
EXTENSION = str(HERE.parent.parent / "integrations" / "browser" / "extension")

ALGORITHMS = {"ES256": COSEAlgorithmIdentifier.ECDSA_SHA_256, "EdDSA": COSEAlgorithmIdentifier.EDDSA}

# The page's helpers: every flow goes through the public WebAuthn API only, and hands the
# server exactly what a real page would (toJSON()).
PAGE_SCRIPT = r"""
const post = (path, body) => fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify(body)}).then((r) => r.json());
const failure = (error) => ({error: {name: error.name, message: error.message,
  isDOMException: error instanceof DOMException}});
window.rp = {
  async register(request) {
    const options = PublicKeyCredential.parseCreationOptionsFromJSON(await post("/register/options", request));
    if (request.rpId) options.rp.id = request.rpId;
    if (request.credProps) options.extensions = {credProps: true};
    let credential;
    try { credential = await navigator.credentials.create({publicKey: options}); } catch (e) { return failure(e); }
    const page = {
      instance: credential instanceof PublicKeyCredential,
      responseInstance: credential.response instanceof AuthenticatorAttestationResponse,
      id: credential.id, type: credential.type,
      rawIdMatches: credential.id === credential.toJSON().rawId && credential.rawId instanceof ArrayBuffer,
      algorithm: credential.response.getPublicKeyAlgorithm(),
      publicKeyBytes: credential.response.getPublicKey()?.byteLength ?? null,
      authenticatorDataBytes: credential.response.getAuthenticatorData().byteLength,
      flags: new Uint8Array(credential.response.getAuthenticatorData())[32],
      transports: credential.response.getTransports(),
      attachment: credential.authenticatorAttachment,
      extensions: credential.getClientExtensionResults(),
      clientData: JSON.parse(new TextDecoder().decode(credential.response.clientDataJSON)),
    };
    return {page, server: await post("/register/verify", {name: request.name, credential: credential.toJSON()})};
  },
  async signIn(request = {}, mediation, signal) {
    const options = PublicKeyCredential.parseRequestOptionsFromJSON(await post("/login/options", request));
    if (request.rpId) options.rpId = request.rpId;
    let credential;
    const began = performance.now();
    try {
      credential = await navigator.credentials.get({publicKey: options, mediation, signal});
    } catch (e) {
      return {...failure(e), milliseconds: performance.now() - began};
    }
    const page = {
      instance: credential instanceof PublicKeyCredential,
      responseInstance: credential.response instanceof AuthenticatorAssertionResponse,
      id: credential.id,
      userHandle: credential.response.userHandle &&
        new TextDecoder().decode(credential.response.userHandle),
      signatureBytes: credential.response.signature.byteLength,
      flags: new Uint8Array(credential.response.authenticatorData)[32],
      attachment: credential.authenticatorAttachment,
      clientData: JSON.parse(new TextDecoder().decode(credential.response.clientDataJSON)),
    };
    return {page, server: await post("/login/verify", {credential: credential.toJSON()})};
  },
};
"""

PAGE = """<!doctype html>
<meta charset="utf-8"><title>passkeyd test site</title>
<form><input id="username" name="username" autocomplete="username webauthn"><button type="button">Sign in</button></form>
<script>{script}</script>
<script>{extra}</script>
"""

# Conditional mediation as sites use it: started on load, answered when the user picks a passkey.
CONDITIONAL_ON_LOAD = """
window.controller = new AbortController();
window.conditional = rp.signIn({}, "conditional", controller.signal);
"""

# A sign-in in a window the page opened: the popup signs in and tells its opener the outcome.
POPUP = """
rp.signIn({}).then((outcome) => window.opener.postMessage(JSON.stringify(outcome), location.origin));
"""


# A registration in a frame another site embeds: the frame tells its parent the outcome.
FRAMED = """
const framedRegister = () => rp.register({name: new URLSearchParams(location.search).get("name")})
  .then((outcome) => parent.postMessage(JSON.stringify(outcome), "*"));
// A cross-origin frame may create only with transient activation (WebAuthn L3 §5.1.3): on a
// click anywhere in it, unless ?now says to try at once.
if (new URLSearchParams(location.search).has("now")) framedRegister();
else addEventListener("click", framedRegister, {once: true});
document.documentElement.style.minHeight = "100%";
"""


# A frame that answers "echo": once its answer is back, every message posted to it before has
# been dispatched to all of its listeners (the extension's bridge included).
ECHO = """
addEventListener("message", (event) => { if (event.data === "echo") event.source.postMessage("echoed", "*"); });
// {run: expression}: the frame's own script evaluates it and answers {ran: its value as JSON}.
addEventListener("message", async (event) => {
  if (!event.data || typeof event.data.run !== "string") return;
  let ran;
  try { ran = await (0, eval)(event.data.run); } catch (error) { ran = {thrown: String(error)}; }
  event.source.postMessage({ran: JSON.stringify(ran ?? null)}, "*");
});
"""


def frame_run(page: Page, expression: str, timeout: float = 60):
    """`expression`'s value as the page's first frame (an /echo page) evaluates it itself."""
    return json.loads(page.evaluate(f"""new Promise((resolve) => {{
        addEventListener("message", (event) => {{ if (event.data && typeof event.data.ran === "string") resolve(event.data.ran); }});
        frames[0].postMessage({{run: {json.dumps(expression)}}}, "*");
    }})""", timeout=timeout))


@dataclass
class Account:
    user_id: bytes
    name: str
    credential_id: bytes = b""
    public_key: bytes = b""
    sign_count: int = 0


@dataclass
class RelyingParty:
    """The site: options from py_webauthn, responses verified by py_webauthn, accounts in memory."""

    rp_id: str = "localhost"
    accounts: dict[str, Account] = field(default_factory=dict)          # name → account
    credentials: dict[bytes, Account] = field(default_factory=dict)    # credential id → account
    challenges: dict[str, str] = field(default_factory=dict)           # outstanding challenge → its ceremony
    verified: list[dict] = field(default_factory=list)

    def start(self) -> "RelyingParty":
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                page = {"/": "", "/conditional": CONDITIONAL_ON_LOAD, "/popup": POPUP, "/framed": FRAMED,
                        "/echo": ECHO, "/sandboxed": ""}.get(self.path.split("?")[0])
                if page is None:
                    return self._send(404, b"not found", "text/plain")
                # /sandboxed: the same page as a sandboxed document (an opaque origin, CSP sandbox).
                headers = {"Content-Security-Policy": "sandbox allow-scripts"} if self.path.startswith("/sandboxed") else {}
                self._send(200, PAGE.format(script=PAGE_SCRIPT, extra=page).encode(), "text/html", headers)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                try:
                    reply = site.handle(self.path, body)
                except KeyError as error:
                    return self._send(404, str(error).encode(), "text/plain")
                self._send(200, json.dumps(reply).encode(), "application/json")

            def _send(self, status, body, kind, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://localhost:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str = "/") -> str:
        return self.origin + path

    def handle(self, path: str, body: dict) -> dict:
        if path == "/register/options":
            name = body["name"]
            account = self.accounts.setdefault(name, Account(user_id=name.encode(), name=name))
            exclude = [PublicKeyCredentialDescriptor(id=a.credential_id) for a in [account] if a.credential_id] \
                if body.get("exclude") else []
            options = webauthn.generate_registration_options(
                rp_id=self.rp_id, rp_name="passkeyd test site", user_name=name, user_id=account.user_id,
                user_display_name=name.title(), exclude_credentials=exclude,
                supported_pub_key_algs=[ALGORITHMS[body.get("alg", "ES256")]],
                authenticator_selection=AuthenticatorSelectionCriteria(
                    resident_key=ResidentKeyRequirement.REQUIRED if body.get("resident", True)
                    else ResidentKeyRequirement.DISCOURAGED,
                    user_verification=UserVerificationRequirement.PREFERRED))
            self.challenges[base64url(options.challenge)] = "register:" + name
            return json.loads(webauthn.options_to_json(options))
        if path == "/register/verify":
            credential, name = body["credential"], body["name"]
            try:
                result = webauthn.verify_registration_response(
                    credential=credential, expected_challenge=self._challenge(credential, "register:" + name),
                    expected_origin=self.origin, expected_rp_id=self.rp_id)
            except Exception as error:
                return self._record({"verified": False, "error": str(error)})
            account = self.accounts[name]
            account.credential_id, account.public_key = result.credential_id, result.credential_public_key
            account.sign_count = result.sign_count
            self.credentials[result.credential_id] = account
            return self._record({"verified": True, "user": name, "credentialId": base64url(result.credential_id),
                                 "format": result.fmt, "signCount": result.sign_count})
        if path == "/login/options":
            allow = [PublicKeyCredentialDescriptor(id=self.accounts[n].credential_id) for n in body.get("allow", [])]
            options = webauthn.generate_authentication_options(
                rp_id=self.rp_id, allow_credentials=allow, user_verification=UserVerificationRequirement.PREFERRED)
            self.challenges[base64url(options.challenge)] = "login"
            return json.loads(webauthn.options_to_json(options))
        if path == "/login/verify":
            credential = body["credential"]
            account = self.credentials.get(unbase64url(credential["rawId"]))
            if account is None:
                return self._record({"verified": False, "error": "unknown credential"})
            try:
                result = webauthn.verify_authentication_response(
                    credential=credential, expected_challenge=self._challenge(credential, "login"),
                    expected_rp_id=self.rp_id, expected_origin=self.origin,
                    credential_public_key=account.public_key, credential_current_sign_count=account.sign_count)
            except Exception as error:
                return self._record({"verified": False, "error": str(error)})
            account.sign_count = result.new_sign_count
            return self._record({"verified": True, "user": account.name, "signCount": result.new_sign_count})
        raise KeyError(path)

    def _challenge(self, credential: dict, ceremony: str) -> bytes:
        """The challenge this site issued for `ceremony` that the response answers (used up);
        one the site never issued, or issued for another ceremony, fails verification."""
        client_data = json.loads(unbase64url(credential["response"]["clientDataJSON"]))
        answered = client_data.get("challenge", "")
        if self.challenges.get(answered) == ceremony:
            del self.challenges[answered]
            return unbase64url(answered)
        return b"not issued by this site"

    def _record(self, outcome: dict) -> dict:
        self.verified.append(outcome)
        return outcome


def base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unbase64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- one browser with the extension and the host, against one daemon ----------------------


class Session:
    """A browser whose extension reaches `socket`'s passkeyd through the installed host.

    `automation` (the default, as the suites run unattended) installs the host with
    `passkeyctl browser install --automation`: no one is asked to approve a ceremony, while
    choosers and the PIN entry still ask. Without it, the person approves each ceremony in the
    extension's own window (`approval_window`). `extra`: more of Chromium's command-line flags."""

    def __init__(self, kind: str, socket: str, automation: bool = True, extra: list[str] = ()):
        self.kind = kind
        self.automation = automation
        self.home = tempfile.mkdtemp(prefix=f"passkeyd-{kind}-home-")
        env = {"HOME": self.home, "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
               "XDG_DATA_HOME": os.path.join(self.home, ".local", "share")}
        # Clear any PASSKEYD_SOCKET the test runner has: the script `install` writes names the socket.
        base = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEY")}
        if kind == "chromium":
            self.profile = os.path.join(self.home, "chromium")
            args = ["browser", "install", "--chromium", "--profile", self.profile]
        else:
            self.profile = None
            args = ["browser", "install", "--firefox"]
        if automation:
            args.append("--automation")
        self.install = subprocess.run([passkeyctl_binary(), "--socket", socket, *args], env={**base, **env},
                                      capture_output=True, text=True, timeout=60)
        assert self.install.returncode == 0, self.install.stderr
        try:
            if kind == "chromium":
                self.browser = Chromium(EXTENSION, profile=self.profile, env=env, extra=extra)
            else:
                self.browser = Firefox(EXTENSION, home=self.home, env=env)
            self.browser.extension_ready()
        except BaseException:
            shutil.rmtree(self.home, ignore_errors=True)
            raise

    def page(self, rp: RelyingParty, path: str = "/") -> Page:
        return self.browser.new_page(rp.url(path))

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            shutil.rmtree(self.home, ignore_errors=True)


def register(page: Page, name: str, **request) -> dict:
    return page.evaluate(f"rp.register({json.dumps({'name': name, **request})})")


def sign_in(page: Page, request: dict | None = None, mediation: str | None = None) -> dict:
    mediation_js = "undefined" if mediation is None else json.dumps(mediation)
    return page.evaluate(f"rp.signIn({json.dumps(request or {})}, {mediation_js})")


def start(page: Page, expression: str, name: str = "outcome") -> None:
    """Starts a promise in the page without waiting for it (its value lands in window[name])."""
    page.evaluate(f"(window.{name}Done = undefined, window.{name} = {expression},"
                  f" window.{name}.then((v) => window.{name}Done = v), true)")


# -- the extension's approval window (prompt.html), driven as a person drives it -----------

PROMPT_PAGE = "prompt.html"
# The window ignores input for half a second after a question appears (a key meant for the page
# must not answer it); the helpers wait a little longer before they press anything.
GUARD = 0.7


def approval_window(page: Page, kind: str, previous: str | None = None, timeout: float = 60) -> tuple[Page, dict]:
    """The extension's window once it shows a question of `kind` ("choose", "confirm", "pin",
    "status") other than `previous` (a question id), ready for input: (its page, the question)."""
    def showing():
        for window in page.browser.extension_pages(PROMPT_PAGE):
            try:
                question = window.evaluate("typeof current === 'undefined' || !current ? null"
                                           " : {...current, age: performance.now() - shownAt, token: location.hash}")
            except Exception:  # the window closed meanwhile
                continue
            if question and question.get("type") == kind \
                    and (previous is None or question.get("prompt") != previous) \
                    and (question["token"], question.get("prompt")) not in ANSWERED:
                return window, question
        return None
    window, question = poll(showing, timeout, f"the extension's window never showed a {kind!r} question")
    ANSWERED.add((question["token"], question.get("prompt")))
    time.sleep(max(0.0, GUARD - question["age"] / 1000))
    return window, question


# Questions already taken by a helper (window token, question id): a window that is closing may
# still be listed, and must not be answered twice.
ANSWERED: set[tuple[str, str | None]] = set()


def no_approval_window(page: Page) -> bool:
    return not page.browser.extension_pages(PROMPT_PAGE)


def chooser_open(page: Page) -> tuple[Page, dict]:
    """The modal account chooser, in the extension's window."""
    return approval_window(page, "choose")


def pick(page: Page, index: int) -> dict:
    """A person's pick in the extension's account chooser: arrow keys, then Enter."""
    window, question = chooser_open(page)
    for _ in range(index):
        window.press("ArrowDown")
    window.press("Enter", closes=True)
    return question


def approve(page: Page, accept: bool = True, key: str | None = None) -> dict:
    """Answers the consent question ("Sign in to … as …?") in the extension's window: Enter
    approves, Escape refuses (or `key`)."""
    window, question = approval_window(page, "confirm")
    window.press(key or ("Enter" if accept else "Escape"), closes=True)
    return question


def pin_dialog(page: Page, previous: str | None = None) -> tuple[Page, dict]:
    """The PIN question in the extension's window (other than `previous`, a question id)."""
    return approval_window(page, "pin", previous)


def enter_pin(page: Page, pin: str | None, previous: str | None = None) -> str:
    """Types `pin` into the window's PIN field and presses Enter (None: Escape); returns the
    question's id, so a PIN asked again (after a wrong one) can be told apart."""
    window, question = pin_dialog(page, previous)
    if pin is None:
        window.press("Escape", closes=True)
    else:
        window.type_text(pin)
        window.press("Enter", closes=True)
    return question["prompt"]


def suggestions_open(page: Page) -> bool:
    return page.wait_for("!!document.querySelector('passkeyd-ui')")


def pick_suggestion(page: Page, index: int) -> None:
    """A person's pick among conditional mediation's suggestions under the focused webauthn
    field: ArrowDown opens them (a script's focus() does not), then arrows and Enter."""
    # The suggestions exist once passkeyd answered the conditional request: until then the
    # person's ArrowDown opens nothing, and they press it again.
    def opened():
        page.press("ArrowDown")
        try:
            return page.wait_for("!!document.querySelector('passkeyd-ui')", timeout=1)
        except TimeoutError:
            return False
    poll(opened, 60, "conditional mediation's suggestions never opened")
    time.sleep(GUARD)
    for _ in range(index):
        page.press("ArrowDown")
    page.press("Enter")


def assert_registered(outcome: dict, rp: RelyingParty, name: str, algorithm: int) -> None:
    assert "error" not in outcome, outcome
    page, server = outcome["page"], outcome["server"]
    assert page["instance"] and page["responseInstance"], "instanceof the browser's own interfaces"
    assert page["type"] == "public-key" and page["rawIdMatches"]
    assert page["algorithm"] == algorithm
    assert page["clientData"]["type"] == "webauthn.create" and page["clientData"]["origin"] == rp.origin
    assert page["authenticatorDataBytes"] >= 37 + 16
    assert server["verified"] is True and server["user"] == name, server
    assert server["credentialId"] == page["id"]


def assert_signed_in(outcome: dict, rp: RelyingParty, name: str) -> None:
    assert "error" not in outcome, outcome
    page, server = outcome["page"], outcome["server"]
    assert page["instance"] and page["responseInstance"]
    assert page["clientData"]["type"] == "webauthn.get" and page["clientData"]["origin"] == rp.origin
    assert page["id"] == base64url(rp.accounts[name].credential_id)
    assert server["verified"] is True and server["user"] == name, server


def new_name(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(3)}"
