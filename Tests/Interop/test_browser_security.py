"""The browser door attacked as issue 40 found it open, in real browsers (Debian's headless
Chromium over the DevTools protocol, Firefox ESR over WebDriver BiDi), against a real passkeyd:
each attack now fails — no credential, no signature, nothing stored changes, other tabs go on.

- sandboxed documents (an opaque origin) get nothing, whatever URL they were loaded from;
- a cross-origin frame the permissions policy does not allow gets nothing, through the API or
  the extension's own messages posted by hand;
- with a default install (no --automation) every ceremony waits for the person in the
  extension's own window, which names the site with its port and the account; Cancel, Escape,
  closing it, or no answer in time end it with NotAllowedError;
- the suggestions left in the page open only on the person's input and take no pick while page
  CSS hides them;
- a message over 1 MiB is refused to its frame only; one frame holds one pending ceremony.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from browser_driver import chromium_path, firefox_path, poll
from browser_flows import (
    ALGORITHMS,
    RelyingParty,
    Session,
    approval_window,
    approve,
    assert_registered,
    assert_signed_in,
    frame_run,
    new_name,
    no_approval_window,
    pick,
    pick_suggestion,
    register,
    sign_in,
    start,
)
from passkeyd_pin import passkeyctl, set_pin

BROWSERS = [
    pytest.param("chromium", marks=pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed")),
    pytest.param("firefox", marks=pytest.mark.skipif(firefox_path() is None, reason="Debian's firefox-esr is not installed")),
]
SCREENSHOTS = os.environ.get("PASSKEYD_SCREENSHOTS")  # a folder: the window's questions are saved there

# A registration and a sign-in straight through the API, with no server: what a sandboxed or
# framed attacker would call. Each resolves to "resolved" or the error's name.
CREATE = """navigator.credentials.create({publicKey: {rp: {name: "x"}, user: {id: new Uint8Array([7, 7, 7]),
  name: "attacker", displayName: "A"}, challenge: new Uint8Array(32), pubKeyCredParams: [{type: "public-key", alg: -7}],
  authenticatorSelection: {residentKey: "required"}, timeout: 20000}}).then(() => "resolved", (e) => e.name)"""
GET = """navigator.credentials.get({publicKey: {challenge: new Uint8Array(32), rpId: "localhost", timeout: 20000}})
  .then(() => "resolved", (e) => e.name)"""
# The extension's own messages, posted by hand: the window.postMessage form page.js once used, and
# a channel of the attacker's own offered as page.js offers its port. Resolves to what came back.
FORGE = """new Promise((resolve) => {
  const seen = [];
  const options = {rp: {id: "localhost", name: "x"}, user: {id: "Zm9yZ2Vk", name: "forged", displayName: "F"},
    challenge: "AAAAAAAAAAAAAAAAAAAAAA", pubKeyCredParams: [{type: "public-key", alg: -7}],
    authenticatorSelection: {residentKey: "required"}};
  addEventListener("message", (event) => { if (typeof event.data === "string" && event.data.includes("to-page")) seen.push(event.data); });
  for (const type of ["create", "get"]) {
    postMessage(JSON.stringify({passkeyd: "to-bridge", type, id: 4242, origin: "http://localhost", options}), "*");
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = (event) => seen.push(JSON.stringify(event.data));
  dispatchEvent(new MessageEvent("passkeyd:channel", {ports: [channel.port2]}));
  dispatchEvent(new CustomEvent("passkeyd:ready"));
  channel.port1.postMessage({type: "create", id: 1, options});
  channel.port1.postMessage({type: "get", id: 2, options: {challenge: "AAAAAAAAAAAAAAAAAAAAAA"}});
  setTimeout(() => resolve(seen), 3000);
})"""


def stored(daemon) -> list:
    """Every localhost credential with its counter: an assertion made anywhere changes it."""
    done = passkeyctl(daemon.socket, "--json", "list", "--rp", "localhost", pin=None)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["relyingParties"]


@pytest.fixture(scope="module", params=BROWSERS)
def kind(request):
    return request.param


@pytest.fixture(scope="module")
def unattended(kind, daemon):
    """Installed with --automation: nobody is asked to approve."""
    s = Session(kind, daemon.socket)
    yield s
    s.close()


@pytest.fixture(scope="module")
def attended(kind, daemon):
    """A default install: the person approves each ceremony in the extension's window."""
    s = Session(kind, daemon.socket, automation=False)
    yield s
    s.close()


@pytest.fixture
def rp(daemon):
    """A fresh site on http://localhost, and no localhost passkey left from an earlier test."""
    if stored(daemon):
        done = passkeyctl(daemon.socket, "delete", "--rp", "localhost", "--yes", pin=None)
        assert done.returncode == 0, done.stderr
    site = RelyingParty().start()
    yield site
    site.stop()


@pytest.fixture
def victim(unattended, rp):
    """A resident passkey on localhost for the attacks to try to use."""
    page = unattended.page(rp)
    try:
        name = new_name("victim")
        assert_registered(register(page, name), rp, name, ALGORITHMS["ES256"])
    finally:
        page.close()
    return name


# -- item 1: opaque origins ----------------------------------------------------------------


def test_a_sandboxed_document_gets_nothing(unattended, rp, victim, daemon):
    """Served with `Content-Security-Policy: sandbox allow-scripts` from the victim's own URL: its
    origin is opaque, and neither the API nor hand-posted messages reach passkeyd. NotAllowedError
    is what Chromium's own WebAuthn answers there ("The current origin is an opaque origin…")."""
    before = stored(daemon)
    page = unattended.page(rp, "/sandboxed")
    try:
        assert page.evaluate("origin") == "null", "the document is sandboxed"
        assert page.evaluate(CREATE) == "NotAllowedError"
        assert page.evaluate(GET) == "NotAllowedError"
        assert page.evaluate(FORGE) == []
    finally:
        page.close()
    assert stored(daemon) == before


def test_a_sandboxed_frame_gets_nothing(unattended, rp, victim, daemon):
    """`<iframe sandbox="allow-scripts">` of the victim's own page: opaque, refused."""
    before = stored(daemon)
    page = unattended.page(rp)
    try:
        outcome = page.evaluate(f"""new Promise((resolve) => {{
            const answers = {{}};
            addEventListener("message", (event) => {{
              if (event.origin !== "null") return;
              Object.assign(answers, JSON.parse(event.data));
              if (Object.keys(answers).length === 3) resolve(answers);
            }});
            const frame = document.createElement("iframe");
            frame.sandbox = "allow-scripts";
            frame.srcdoc = `<script>
              (async () => {{
                const create = await {CREATE};
                const get = await {GET};
                const forged = await {FORGE};
                parent.postMessage(JSON.stringify({{create, get, forged}}), "*");
              }})();
            <\\/script>`;
            document.body.append(frame);
        }})""")
        assert outcome["create"] == "NotAllowedError", outcome
        assert outcome["get"] == "NotAllowedError", outcome
        assert outcome["forged"] == [], outcome
    finally:
        page.close()
    assert stored(daemon) == before


# -- item 2: permissions policy and activation, decided where the page cannot lie ----------


def cross_origin_frame(page, other, allow: str) -> None:
    page.evaluate(f"""new Promise((resolve) => {{
        const frame = document.createElement("iframe");
        frame.allow = {json.dumps(allow)};
        frame.onload = () => resolve(true);
        frame.src = {json.dumps(other.url("/echo"))};
        document.body.append(frame);
    }})""")


def test_a_cross_origin_frame_without_allow_gets_nothing(unattended, rp, victim, daemon):
    """Another site's frame, embedded with no allow= attribute, calls the API and posts the
    extension's messages itself: refused (NotAllowedError), nothing changes in passkeyd."""
    before = stored(daemon)
    other = RelyingParty().start()
    page = unattended.page(rp)
    try:
        cross_origin_frame(page, other, "")
        assert frame_run(page, CREATE) == "NotAllowedError"
        assert frame_run(page, GET) == "NotAllowedError"
        assert frame_run(page, FORGE) == []
    finally:
        page.close()
        other.stop()
    assert stored(daemon) == before


def test_a_cross_origin_frame_with_allow_signs_in_where_the_browser_can_tell(unattended, rp, victim, kind):
    """With allow="publickey-credentials-get" Chromium's isolated world reads the policy and the
    frame signs in (its own origin, crossOrigin true). Firefox shows an extension no permissions
    policy, so there the frame is refused: the safe answer where the allow= cannot be known."""
    other = RelyingParty(rp_id="localhost").start()
    other.accounts, other.credentials = rp.accounts, rp.credentials
    page = unattended.page(rp)
    try:
        cross_origin_frame(page, other, "publickey-credentials-get")
        outcome = frame_run(page, "rp.signIn({})")
        if kind == "chromium":
            assert_signed_in(outcome, other, victim)
            assert outcome["page"]["clientData"]["crossOrigin"] is True
        else:
            assert outcome["error"]["name"] == "NotAllowedError", outcome
    finally:
        page.close()
        other.stop()


# -- items 3 and 4: the person approves in the extension's window ---------------------------


def save(window, name: str) -> None:
    if SCREENSHOTS and hasattr(window, "send"):
        import base64
        shot = window.send("Page.captureScreenshot", {"format": "png"})
        with open(os.path.join(SCREENSHOTS, name), "wb") as f:
            f.write(base64.b64decode(shot["data"]))


def test_a_default_install_asks_the_person_in_the_extensions_window(attended, rp, daemon):
    """No gesture, default install: registration and sign-in wait for the window, which names
    the site with its port and the account; nothing is in the page meanwhile, and a key the
    person presses in the page answers nothing. Approved, they complete."""
    page = attended.page(rp)
    try:
        name = new_name("asked")
        start(page, f"rp.register({json.dumps({'name': name})})")
        window, question = approval_window(page, "confirm")
        assert (question["ceremony"], question["account"], question["site"]) == ("create", name, rp.origin), question
        assert rp.origin in window.evaluate("document.body.innerText")
        save(window, "browser-approve-create.png")
        assert page.evaluate("!document.querySelector('passkeyd-ui') && window.outcomeDone === undefined")
        page.press("Enter")  # in the page, not the window: answers nothing
        time.sleep(1)
        assert page.evaluate("window.outcomeDone === undefined")
        window.press("Enter", closes=True)
        assert_registered(page.wait_for("window.outcomeDone"), rp, name, ALGORITHMS["ES256"])

        start(page, "rp.signIn({})")
        question = approve(page)
        assert (question["ceremony"], question["account"]) == ("get", name), question
        assert_signed_in(page.wait_for("window.outcomeDone"), rp, name)
    finally:
        page.close()


@pytest.mark.parametrize("how", ["Escape", "Cancel", "close", "timeout"])
def test_refused_in_the_window_is_not_allowed_and_signs_nothing(attended, rp, daemon, how):
    page = attended.page(rp)
    try:
        before = stored(daemon)
        name = new_name("refused")
        if how == "timeout":
            # The window waits the request's timeout (within 10 s and 10 min), then refuses.
            start(page, CREATE.replace("timeout: 20000", "timeout: 10000"))
        else:
            start(page, f"rp.register({json.dumps({'name': name})})")
        window, _ = approval_window(page, "confirm")
        began = time.monotonic()
        if how == "Escape":
            window.press("Escape", closes=True)
        elif how == "Cancel":
            box = window.evaluate("[...document.querySelectorAll('button')].find((b) => b.textContent === 'Cancel')"
                                  ".getBoundingClientRect().toJSON()")
            window.click_at(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, closes=True)
        elif how == "close":
            window.close()
        outcome = page.wait_for("window.outcomeDone", timeout=90)
        name_of = outcome if isinstance(outcome, str) else outcome["error"]["name"]
        assert name_of == "NotAllowedError", outcome
        if how == "timeout":
            assert time.monotonic() - began > 5, "it waited for the person"
        poll(lambda: no_approval_window(page), 30, "the window closed")
        assert stored(daemon) == before
        assert rp.verified == []
    finally:
        page.close()


def test_the_chooser_in_the_window_signs_only_the_picked_account(attended, rp, daemon):
    page = attended.page(rp)
    try:
        names = [new_name("alice"), new_name("bob")]
        for name in names:
            start(page, f"rp.register({json.dumps({'name': name})})")
            approve(page)
            assert_registered(page.wait_for("window.outcomeDone"), rp, name, ALGORITHMS["ES256"])
        start(page, "rp.signIn({})")
        window, question = approval_window(page, "choose")
        assert question["site"] == rp.origin and len(question["entries"]) >= 2, question
        assert not page.evaluate("!!document.querySelector('passkeyd-ui')"), "no chooser in the page"
        save(window, "browser-chooser.png")
        window.press("Enter", closes=True)
        consent = approve(page)
        outcome = page.wait_for("window.outcomeDone")
        assert_signed_in(outcome, rp, consent["account"])
    finally:
        page.close()


# -- item 4: what stays in the page ---------------------------------------------------------


def test_suggestions_open_only_on_the_persons_input_and_take_no_pick_while_hidden(unattended, rp, victim):
    page = unattended.page(rp, "/conditional")
    try:
        page.evaluate("window.conditional.then((v) => window.conditionalDone = v), true")
        verified = len(rp.verified)
        # A 1×1 transparent webauthn field, focused by the page's script: nothing opens.
        page.evaluate("""(() => { const f = document.createElement("input"); f.autocomplete = "webauthn";
            f.style = "position:fixed;left:0;top:0;width:1px;height:1px;opacity:0"; document.body.append(f);
            f.focus(); return true; })()""")
        time.sleep(2)
        assert page.evaluate("!document.querySelector('passkeyd-ui')")
        # The page hides the list with CSS; the person's ArrowDown opens it, Enter picks nothing.
        page.evaluate("(document.head.append(Object.assign(document.createElement('style'),"
                      " {textContent: 'passkeyd-ui { opacity: 0 !important }'})), true)")
        page.evaluate("document.getElementById('username').focus(), true")
        pick_suggestion(page, 0)
        # ... and the person's click on the hidden first entry picks nothing either.
        box = page.evaluate("document.getElementById('username').getBoundingClientRect().toJSON()")
        page.click_at(box["x"] + 40, box["bottom"] + 18)
        time.sleep(2)
        assert page.evaluate("window.conditionalDone === undefined"), page.evaluate("window.conditionalDone")
        assert len(rp.verified) == verified
        # Shown as it should be, the same click on the same list signs in.
        assert page.evaluate("!!document.querySelector('passkeyd-ui')"), "the list is still open"
        page.evaluate("(document.querySelectorAll('style').forEach((s) => s.remove()), true)")
        page.click_at(box["x"] + 40, box["bottom"] + 18)
        assert_signed_in(page.wait_for("window.conditionalDone"), rp, victim)
    finally:
        page.close()


# -- items 5 and 6: one page cannot hold up the others --------------------------------------


def test_an_oversized_request_is_refused_to_its_frame_and_other_tabs_go_on(unattended, rp, victim):
    other = unattended.page(rp, "/conditional")
    page = unattended.page(rp)
    try:
        other.evaluate("window.conditional.then((v) => window.conditionalDone = v), true")
        big = page.evaluate("""navigator.credentials.get({publicKey: {challenge: new Uint8Array(2 * 1024 * 1024)}})
            .then(() => "resolved", (e) => e.name)""")
        assert big in ("NotSupportedError", "TypeError"), big
        other.evaluate("document.getElementById('username').focus(), true")
        pick_suggestion(other, 0)
        assert_signed_in(other.wait_for("window.conditionalDone"), rp, victim)
        assert_signed_in(sign_in(page), rp, victim)
    finally:
        page.close()
        other.close()


def test_many_requests_from_one_frame_leave_one_pending_and_others_served(unattended, rp, victim):
    page = unattended.page(rp)
    other = unattended.page(rp)
    try:
        page.evaluate("""(window.many = Array.from({length: 200}, () => navigator.credentials.get({mediation: "conditional",
            publicKey: {challenge: new Uint8Array(32)}}).then(() => "resolved", (e) => e.name)), true)""")
        settled = page.wait_for("""Promise.race([Promise.allSettled(window.many.slice(0, 199)).then(() => true),
            new Promise((r) => setTimeout(() => r(false), 1000))])""", timeout=60)
        assert settled, "all but the newest ended"
        names = page.evaluate("Promise.all(window.many.slice(0, 199))")
        assert set(names) <= {"AbortError", "NotAllowedError", "OperationError", "InvalidStateError"}, set(names)
        assert_signed_in(sign_in(other), rp, victim)
    finally:
        page.close()
        other.close()


def test_the_pin_is_asked_in_the_window_never_in_the_page(kind, daemon_factory):
    """A passkeyd without built-in verification and with a PIN: the PIN field is in the
    extension's window, so the page has no field to read, overlay or fake, and a browser has no
    page form to offer to save it from; the page sees none of its keys."""
    pinned = daemon_factory("--presence", "auto", "--uv", "off")
    set_pin(pinned.socket, "4711")
    session = Session(kind, pinned.socket)
    site = RelyingParty().start()
    try:
        page = session.page(site)
        page.evaluate("""(window.seen = [], ["keydown", "keyup", "input"].forEach((type) =>
            addEventListener(type, (event) => window.seen.push(type), true)), true)""")
        name = new_name("pin")
        start(page, f"rp.register({json.dumps({'name': name})})")
        window, question = approval_window(page, "pin")
        assert question["site"] == site.origin
        assert page.evaluate("!document.querySelector('passkeyd-ui') && !document.querySelector('input[type=password]')")
        save(window, "browser-pin.png")
        window.type_text("4711")
        window.press("Enter", closes=True)
        assert_registered(page.wait_for("window.outcomeDone"), site, name, ALGORITHMS["ES256"])
        assert page.evaluate("window.seen") == []
    finally:
        site.stop()
        session.close()


def test_while_passkeyd_waits_for_presence_the_window_says_so(kind, daemon_factory):
    """`passkeyd --presence prompt`: the ceremony waits for the person's presence on passkeyd's
    side; the browser shows "Confirm on passkeyd…" in the extension's window (not a blank page)
    until `passkeyctl approve` answers, then the window goes and the page has its credential."""
    prompting = daemon_factory("--presence", "prompt", "--uv", "off")
    session = Session(kind, prompting.socket)
    site = RelyingParty().start()
    try:
        page = session.page(site)
        name = new_name("touch")
        start(page, f"rp.register({json.dumps({'name': name})})")
        window, question = approval_window(page, "status")
        poll(lambda: window.evaluate("current.status") == "upNeeded", 60, "the window never said upNeeded")
        assert "Confirm on passkeyd" in window.evaluate("document.body.innerText")
        save(window, "browser-confirm-on-passkeyd.png")
        done = passkeyctl(prompting.socket, "approve", pin=None)
        assert done.returncode == 0, done.stderr
        assert_registered(page.wait_for("window.outcomeDone"), site, name, ALGORITHMS["ES256"])
        poll(lambda: no_approval_window(page), 30, "the window closed")
    finally:
        site.stop()
        session.close()


def test_a_suggestion_picked_in_the_page_still_meets_the_windows_consent(attended, rp, daemon):
    """Default install: the pick under the field only starts the sign-in; the window asks
    "Sign in to … as …?" naming the picked account, and refused there nothing is signed."""
    page = attended.page(rp)
    try:
        name = new_name("cond")
        start(page, f"rp.register({json.dumps({'name': name})})")
        approve(page)
        assert_registered(page.wait_for("window.outcomeDone"), rp, name, ALGORITHMS["ES256"])
    finally:
        page.close()
    for accept in (False, True):
        page = attended.page(rp, "/conditional")
        try:
            page.evaluate("window.conditional.then((v) => window.conditionalDone = v), true")
            page.evaluate("document.getElementById('username').focus(), true")
            pick_suggestion(page, 0)
            question = approve(page, accept=accept)
            assert (question["ceremony"], question["account"], question["site"]) == ("get", name, rp.origin), question
            outcome = page.wait_for("window.conditionalDone")
            if accept:
                assert_signed_in(outcome, rp, name)
            else:
                assert outcome["error"]["name"] == "NotAllowedError", outcome
        finally:
            page.close()
