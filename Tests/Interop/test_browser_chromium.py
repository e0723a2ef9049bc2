"""Debian's headless Chromium with the passkeyd extension and native host, against a real
passkeyd, on pages of a py_webauthn relying party (the flows: browser_suite.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser_driver import chromium_path
from browser_flows import ALGORITHMS, EXTENSION, RelyingParty, Session, assert_registered, new_name, register
from browser_suite import *  # noqa: F401,F403  (the shared fixtures and tests)

EXTENSION_ID = (Path(EXTENSION) / "EXTENSION_ID").read_text().strip()

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")


@pytest.fixture(scope="module")
def kind():
    return "chromium"


def test_passkeyd_not_running_is_a_clear_error_and_the_fallback_is_honoured(tmp_path):
    """The host is installed but nothing listens on its socket: the page gets NotAllowedError
    saying so, without the socket's path (the options page has the reason, and the host's mode); once the options page's "fall back to the browser's own WebAuthn" is ticked, the
    same page registers with the browser's own authenticator (Chrome's virtual one here)."""
    session = Session("chromium", str(tmp_path / "nobody-here.sock"))
    site = RelyingParty().start()
    try:
        page = session.page(site)
        outcome = register(page, "nobody")
        assert outcome["error"]["name"] == "NotAllowedError", outcome
        assert "passkeyd" in outcome["error"]["message"], outcome
        # The socket's path may name the user: pages never get it, the options page does.
        assert str(tmp_path) not in json.dumps(outcome), outcome
        assert site.verified == []

        options = session.browser.new_page(f"chrome-extension://{EXTENSION_ID}/options.html")
        assert "automation" in options.wait_for("document.getElementById('mode').textContent")
        assert options.wait_for("document.getElementById('problem').textContent").startswith("Last problem")
        options.evaluate("document.getElementById('fallback').click(), true")
        options.wait_for("document.getElementById('status').textContent.includes('own WebAuthn')")
        options.close()
        page.send("Page.bringToFront")  # the browser's own WebAuthn answers only the focused page
        page.send("WebAuthn.enable", {"enableUI": False})
        page.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})
        assert_registered(register(page, "fallback"), site, "fallback", ALGORITHMS["ES256"])
    finally:
        site.stop()
        session.close()


def framed_register(page, other, name: str, allow: str, click: bool) -> dict:
    """Another origin's frame in the page registers `name`: on a person's click in it (a trusted
    click through the DevTools protocol) or, without `click`, at once on load."""
    page.evaluate(f"""(window.framed = new Promise((resolve) => {{
        addEventListener("message", (event) => {{ if (event.origin === {json.dumps(other.origin)}) resolve(JSON.parse(event.data)); }});
    }}), window.framed.then((v) => window.framedDone = v), window.frameLoaded = new Promise((resolve) => {{
        const frame = document.createElement("iframe");
        frame.allow = {json.dumps(allow)};
        frame.style = "position:fixed;left:0;top:0;width:320px;height:200px;border:0";
        frame.onload = () => resolve(true);
        frame.src = {json.dumps(other.url("/framed?name=" + name + ("" if click else "&now")))};
        document.body.append(frame);
    }}), true)""")
    page.evaluate("window.frameLoaded")
    if click:
        page.click_at(100, 100)
    return page.wait_for("window.framedDone")


@pytest.mark.parametrize("allowed", [True, False], ids=["allowed", "not-allowed"])
def test_a_cross_origin_frame_registers_only_where_the_permissions_policy_allows(session, page, rp, allowed):
    """Another origin's frame (another port of localhost) in the page, clicked by the person: with
    allow="publickey-credentials-create" it registers with its own origin in the client data
    (verified by its own server); without, NotAllowedError (WebAuthn L3 §5.1.3 step 2)."""
    other = RelyingParty().start()
    try:
        name = new_name("framed")
        allow = "publickey-credentials-create" if allowed else ""
        outcome = framed_register(page, other, name, allow, click=True)
        if allowed:
            assert_registered(outcome, other, name, ALGORITHMS["ES256"])
            assert outcome["page"]["clientData"]["crossOrigin"] is True, outcome["page"]["clientData"]
        else:
            assert outcome["error"]["name"] == "NotAllowedError", outcome
            assert other.verified == []
    finally:
        other.stop()
