"""The real-browser flows, shared by test_browser_chromium.py and test_browser_firefox.py.

Each test module defines a `kind` fixture ("chromium" or "firefox") and imports this module's
fixtures and tests; one browser runs per module against one passkeyd. Every flow checks what the
page received (through the public WebAuthn API only) and what the server verified (py_webauthn).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time

import pytest

from browser_flows import (
    ALGORITHMS,
    RelyingParty,
    Session,
    assert_registered,
    assert_signed_in,
    base64url,
    chooser_open,
    enter_pin,
    new_name,
    pick,
    pick_suggestion,
    register,
    sign_in,
    start,
)
from passkeyd_pin import passkeyctl, passkeyctl_binary, set_pin

PIN = "4711"
# The authenticator data's flags (WebAuthn L3 §6.1): user verified.
UV = 0x04


def ctl(daemon, *args: str) -> subprocess.CompletedProcess:
    done = passkeyctl(daemon.socket, *args, pin=None)
    assert done.returncode == 0, f"passkeyctl {' '.join(args)}: {done.stderr}"
    return done


@pytest.fixture(scope="module")
def session(kind, daemon):
    s = Session(kind, daemon.socket)
    yield s
    s.close()


@pytest.fixture
def rp(daemon):
    """A fresh site on http://localhost, and no localhost passkey left from an earlier test."""
    listed = json.loads(ctl(daemon, "--json", "list", "--rp", "localhost").stdout)
    if listed["relyingParties"]:
        ctl(daemon, "delete", "--rp", "localhost", "--yes")
    site = RelyingParty().start()
    yield site
    site.stop()


@pytest.fixture
def page(session, rp):
    p = session.page(rp)
    yield p
    p.close()


@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA"])
@pytest.mark.parametrize("resident", [True, False], ids=["resident", "non-resident"])
def test_registration_is_verified_and_signs_in(page, rp, algorithm, resident):
    name = new_name("reg")
    outcome = register(page, name, alg=algorithm, resident=resident, credProps=True)
    assert_registered(outcome, rp, name, ALGORITHMS[algorithm])
    assert outcome["page"]["extensions"] == {"credProps": {"rk": resident}}, "credProps says what was stored"
    # The allow list names the credential: a non-resident one can only be found that way.
    assert_signed_in(sign_in(page, {"allow": [name]}), rp, name)


def test_modal_sign_in_with_the_chooser_picking_the_second_of_two_accounts(page, rp):
    first, second = new_name("first"), new_name("second")
    for name in (first, second):
        assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    start(page, "rp.signIn({})")
    pick(page, 1)
    picked = page.wait_for("window.outcomeDone")
    assert_signed_in(picked, rp, picked["server"].get("user", "?"))
    start(page, "rp.signIn({})")
    pick(page, 0)
    other = page.wait_for("window.outcomeDone")
    assert_signed_in(other, rp, other["server"].get("user", "?"))
    # CTAP 2.1 §6.2.2 (getAssertion step 12) lists the most recent credential first.
    assert (picked["server"]["user"], other["server"]["user"]) == (first, second), "the entries in the authenticator's order"


def test_modal_chooser_dismissed_is_not_allowed(page, rp):
    for name in (new_name("a"), new_name("b")):
        register(page, name)
    start(page, "rp.signIn({})")
    window, _ = chooser_open(page)
    window.press("Escape", closes=True)
    outcome = page.wait_for("window.outcomeDone")
    assert outcome["error"]["name"] == "NotAllowedError" and outcome["error"]["isDOMException"]


def test_conditional_sign_in_started_on_load_completes_on_the_picked_suggestion(session, rp):
    name = new_name("cond")
    setup = session.page(rp)
    try:
        assert_registered(register(setup, name), rp, name, ALGORITHMS["ES256"])
    finally:
        setup.close()
    page = session.page(rp, "/conditional")
    try:
        page.evaluate("window.conditional.then((v) => window.conditionalDone = v), true")
        assert page.evaluate("PublicKeyCredential.isConditionalMediationAvailable()") is True
        page.evaluate("document.getElementById('username').focus(), true")
        pick_suggestion(page, 0)
        assert_signed_in(page.wait_for("window.conditionalDone"), rp, name)
    finally:
        page.close()


def test_conditional_request_aborted_ends_with_abort_error(session, rp):
    setup = session.page(rp)
    try:
        register(setup, new_name("cond"))
    finally:
        setup.close()
    page = session.page(rp, "/conditional")
    try:
        page.evaluate("window.conditional.then((v) => window.conditionalDone = v), true")
        page.evaluate("controller.abort(), true")
        outcome = page.wait_for("window.conditionalDone")
        assert outcome["error"]["name"] == "AbortError" and outcome["error"]["isDOMException"]
        # Focus after the abort: no suggestion comes up, and the page signs in as usual.
        page.evaluate("document.getElementById('username').focus(), true")
        assert page.evaluate("!document.querySelector('passkeyd-ui')")
        assert "error" not in sign_in(page)
    finally:
        page.close()


def test_immediate_mediation_without_a_credential_is_not_allowed_at_once(page, rp):
    outcome = sign_in(page, {}, "immediate")
    assert outcome["error"]["name"] == "NotAllowedError" and outcome["error"]["isDOMException"], outcome
    assert outcome["milliseconds"] < 5000, "immediate mediation does not wait for a user"
    assert rp.verified == []


def test_malformed_options_are_the_errors_browsers_give(page, rp):
    """WebIDL and §5.1.11/§5.1.12: a missing required member is a TypeError, bad base64url in
    the JSON form an EncodingError, an unknown mediation a TypeError; nothing reaches passkeyd."""
    errors = page.evaluate("""(async () => {
      const name = (promise) => promise.then(() => "resolved", (e) => e.name);
      const parse = (f) => { try { f(); return "returned"; } catch (e) { return e.name; } };
      return {
        noChallenge: await name(navigator.credentials.create({publicKey: {rp: {name: "x"},
          user: {id: new Uint8Array(1), name: "u", displayName: "U"}, pubKeyCredParams: []}})),
        noUser: await name(navigator.credentials.create({publicKey: {rp: {name: "x"},
          challenge: new Uint8Array(16), pubKeyCredParams: []}})),
        badMediation: await name(navigator.credentials.get({mediation: "sometimes",
          publicKey: {challenge: new Uint8Array(16)}})),
        badBase64url: parse(() => PublicKeyCredential.parseRequestOptionsFromJSON({challenge: "not base64url!"})),
        badSignal: await name(PublicKeyCredential.signalUnknownCredential({rpId: "localhost"})),
      };
    })()""")
    assert errors == {"noChallenge": "TypeError", "noUser": "TypeError", "badMediation": "TypeError",
                      "badBase64url": "EncodingError", "badSignal": "TypeError"}, errors
    assert rp.verified == []


def test_excluded_credential_is_invalid_state(page, rp):
    name = new_name("excl")
    assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    again = register(page, name, exclude=True)
    assert again["error"]["name"] == "InvalidStateError" and again["error"]["isDOMException"], again
    assert len(rp.verified) == 1, "nothing more reached the server"


def test_forged_rp_id_is_a_security_error(page, rp):
    outcome = register(page, new_name("forged"), rpId="example.com")
    assert outcome["error"]["name"] == "SecurityError" and outcome["error"]["isDOMException"], outcome
    outcome = sign_in(page, {"rpId": "example.com"})
    assert outcome["error"]["name"] == "SecurityError", outcome


FORGED_OPTIONS = """{rp: {id: "localhost", name: "x"}, user: {id: "Zm9yZ2Vk", name: "forged", displayName: "F"},
  challenge: "AAAAAAAAAAAAAAAAAAAAAA", pubKeyCredParams: [{type: "public-key", alg: -7}],
  authenticatorSelection: {residentKey: "required"}}"""


def stored_users(daemon) -> list:
    listed = json.loads(ctl(daemon, "--json", "list", "--rp", "localhost").stdout)["relyingParties"]
    return [c.get("userName") or c.get("user", {}).get("name") for group in listed for c in group["credentials"]]


def test_a_page_cannot_talk_to_the_extension_itself(page, rp, daemon):
    """The page posts the extension's messages itself: the window.postMessage form page.js once
    used (claiming https://example.com as its origin), and a channel of its own offered as page.js
    offers its port. The bridge took page.js's port before any page script ran and listens to
    nothing else: neither is answered, and nothing is stored."""
    seen = page.evaluate(f"""new Promise((resolve) => {{
      const seen = [];
      addEventListener("message", (event) => {{ if (event.source === window) seen.push("window:" + String(event.data).slice(0, 40)); }});
      postMessage(JSON.stringify({{passkeyd: "to-bridge", type: "create", id: 424242,
        origin: "https://example.com", topOrigin: "https://example.com", options: {FORGED_OPTIONS}}}), "*");
      const channel = new MessageChannel();
      channel.port1.onmessage = (event) => seen.push("port:" + JSON.stringify(event.data));
      dispatchEvent(new MessageEvent("passkeyd:channel", {{ports: [channel.port2]}}));
      dispatchEvent(new CustomEvent("passkeyd:ready"));
      channel.port1.postMessage({{type: "create", id: 1, options: {FORGED_OPTIONS}}});
      setTimeout(() => resolve(seen), 3000);
    }})""")
    assert len(seen) == 1 and seen[0].startswith('window:{"passkeyd":"to-bridge"'), "only the page's own post: " + repr(seen)
    assert stored_users(daemon) == []


def test_a_page_cannot_send_requests_through_another_sites_frame(page, rp, daemon):
    """The page posts a well-formed request into a frame of another origin it embeds: that
    frame's bridge takes messages from its own window only, so nothing is created for the
    frame's origin; the page's own registration, sent after, is the only credential."""
    other = RelyingParty().start()
    try:
        page.evaluate(f"""new Promise((resolve) => {{
            const frame = document.createElement("iframe");
            frame.onload = () => resolve(true); frame.src = {json.dumps(other.url("/echo"))};
            document.body.append(frame); }})""")
        page.evaluate("""new Promise((resolve) => {
            addEventListener("message", (event) => { if (event.data === "echoed") resolve(true); });
            frames[0].postMessage(JSON.stringify({passkeyd: "to-bridge", type: "create", id: 1,
              options: {rp: {id: "localhost", name: "x"}, user: {id: "Zm9yZ2Vk", name: "forged", displayName: "F"},
                challenge: "AAAAAAAAAAAAAAAAAAAAAA", pubKeyCredParams: [{type: "public-key", alg: -7}],
                authenticatorSelection: {residentKey: "required"}}}), "*");
            frames[0].postMessage("echo", "*");
        })""")
        name = new_name("own")
        assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
        listed = json.loads(ctl(daemon, "--json", "list", "--rp", "localhost").stdout)["relyingParties"]
        users = [c.get("userName") or c.get("user", {}).get("name") for group in listed for c in group["credentials"]]
        assert users == [name], listed
    finally:
        other.stop()


def test_a_popup_window_signs_in(session, page, rp):
    name = new_name("popup")
    assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    page.evaluate("""(window.fromPopup = new Promise((resolve) => addEventListener("message",
        (event) => { if (event.origin === location.origin) resolve(JSON.parse(event.data)); })),
        window.fromPopup.then((v) => window.popupDone = v), window.open("/popup", "signin", "popup"), true)""")
    popup = session.browser.wait_for_page(rp.url("/popup"))
    try:
        assert_signed_in(page.wait_for("window.popupDone"), rp, name)
    finally:
        popup.close()


def test_a_same_origin_frame_registers_and_signs_in(page, rp):
    """Every frame gets the extension (all_frames): the frame's own navigator.credentials."""
    page.evaluate("""new Promise((resolve) => { const frame = document.createElement("iframe");
        frame.onload = () => resolve(true); frame.src = "/"; document.body.append(frame); })""")
    name = new_name("frame")
    outcome = page.evaluate(f"frames[0].rp.register({json.dumps({'name': name})})")
    assert_registered(outcome, rp, name, ALGORITHMS["ES256"])
    assert_signed_in(page.evaluate("frames[0].rp.signIn({})"), rp, name)


def test_bogus_signature_fault_fails_the_servers_verification(page, rp, daemon):
    name = new_name("fault")
    assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    ctl(daemon, "fault", "set", "bogus-signature")
    faulty = sign_in(page)
    assert faulty["page"]["instance"], "the page got a credential, as from a real key"
    assert faulty["server"]["verified"] is False and "signature" in faulty["server"]["error"].lower(), faulty
    assert_signed_in(sign_in(page), rp, name)  # armed once: the next sign-in verifies


def test_client_capabilities_and_a_signal_seen_in_watch(page, rp, daemon):
    capabilities = page.evaluate("PublicKeyCredential.getClientCapabilities()")
    assert capabilities["conditionalGet"] is True and capabilities["signalCurrentUserDetails"] is True, capabilities
    assert all(isinstance(v, bool) for v in capabilities.values())
    assert page.evaluate("PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable()") in (True, False)
    name = new_name("signal")
    assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    watcher = subprocess.Popen([passkeyctl_binary(), "--socket", daemon.socket, "--json", "watch"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={k: v for k, v in os.environ.items() if not k.startswith("PASSKEY")})
    try:
        assert "Watching" in watcher.stderr.readline()
        user_id = base64url(rp.accounts[name].user_id)
        credential_id = base64url(rp.accounts[name].credential_id)
        page.evaluate(f"""PublicKeyCredential.signalCurrentUserDetails({{rpId: "localhost",
            userId: "{user_id}", name: "renamed@example.com", displayName: "Renamed"}})""")
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
        event = None
        deadline = time.monotonic() + 30
        while event is None and time.monotonic() < deadline:
            try:
                candidate = json.loads(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                break
            if candidate.get("event") == "credential.updated" and candidate.get("credentialId") == credential_id:
                event = candidate
    finally:
        watcher.terminate()
        watcher.wait(10)
    assert event is not None, "the signal reached passkeyd"
    assert event.get("userName") == "renamed@example.com", event


@pytest.fixture(scope="module")
def pinned(kind, daemon_factory):
    """A browser on a passkeyd without built-in verification (`--uv off`) and with a PIN: the
    PIN entry in the extension's window is the only way to verify the user."""
    daemon = daemon_factory("--presence", "auto", "--uv", "off")
    set_pin(daemon.socket, PIN)
    s = Session(kind, daemon.socket)
    yield s
    s.close()


def test_a_pin_typed_into_the_extensions_window_verifies_the_user_and_the_page_never_sees_it(pinned):
    site = RelyingParty().start()
    page = pinned.page(site)
    try:
        # The page listens for every key and input event it could: none of the PIN's may reach it.
        page.evaluate("""(window.seen = [], ["keydown", "keypress", "keyup", "beforeinput", "input"].forEach((type) =>
            addEventListener(type, (event) => window.seen.push(type + ":" + (event.key ?? event.data)), true)), true)""")
        name = new_name("pin")
        start(page, f"rp.register({json.dumps({'name': name})})")
        wrong = enter_pin(page, "9999")
        enter_pin(page, PIN, previous=wrong)  # asked again after the wrong PIN
        registered = page.wait_for("window.outcomeDone")
        assert_registered(registered, site, name, ALGORITHMS["ES256"])
        assert registered["page"]["flags"] & UV, registered["page"]
        start(page, "rp.signIn({})")
        enter_pin(page, PIN)
        signed_in = page.wait_for("window.outcomeDone")
        assert_signed_in(signed_in, site, name)
        assert signed_in["page"]["flags"] & UV, signed_in["page"]
        # The PIN is typed into the extension's window: no key of it reaches the page.
        seen = page.evaluate("window.seen")
        assert seen == [], seen
        # Cancelled: the page's NotAllowedError.
        start(page, "rp.signIn({})")
        enter_pin(page, None)
        cancelled = page.wait_for("window.outcomeDone")
        assert cancelled["error"]["name"] == "NotAllowedError" and cancelled["error"]["isDOMException"], cancelled
    finally:
        page.close()
        site.stop()
